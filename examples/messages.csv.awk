# Generates message records: a date, a time of day and a growing message id,
# like a chat service writing in time order. Usage: awk -v n=10 -f messages.csv.awk
BEGIN {
	if (!n) n = 10
	print "date,time,id,user,domain,ts"
	split("flink.example.com,api.shop.example.org,cdn.example.net,mail.example.com", doms, ",")
	t = 1686465031   # 2023-06-11 06:30:31 UTC
	for (i = 0; i < n; i++) {
		s = t + i * 7
		printf "230611,%02d%02d%02d,%d,%d,%s,%.0f\n", int(s / 3600) % 24, int(s / 60) % 60, s % 60, \
		       1231231 + i, (i * 7919) % 1000, doms[i % 4 + 1], s * 1000
	}
}
