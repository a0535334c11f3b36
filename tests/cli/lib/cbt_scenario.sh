# The cbt scenario of serve_cbt.sh, sourced (by it, and by
# tests/fuzz/capture_serve_seeds.sh to record its requests): `scenario ADDR`
# runs the calls against the server at ADDR, project p, instance i, their
# outputs on stdout. Needs $T, a scratch directory.

# c ADDR args...: cbt against ADDR; output on stdout, errors into $T/cbt.err
c() { local a=$1; shift; BIGTABLE_EMULATOR_HOST=$a cbt -project p -instance i "$@" 2>"$T/cbt.err"; }
# no timestamps: "  cf:q  @ 2026/11/24-13:09:00.123000" -> "  cf:q"
nots() { sed -E 's/ +@ [0-9/:.-]+$//'; }

scenario() { # scenario ADDR: the calls, their outputs on stdout
	local a=$1
	c "$a" createtable t families=cf:maxversions=4,meta splits=g,p || echo "createtable: $(cat "$T/cbt.err")"
	c "$a" createtable u
	c "$a" createfamily u f1
	c "$a" ls
	c "$a" ls t
	for k in a b c g h m p q z zz "k 1"; do
		c "$a" set t "$k" cf:x="v-$k" cf:y="w" meta:n="$k"
	done
	c "$a" set t b cf:x=second
	c "$a" set t b cf:x=third
	c "$a" set t b cf:x=1000@1000 # an explicit timestamp (micros, ms granularity)
	# (4 versions of b cf:x within maxversions=4: the emulator collects garbage
	# when it likes, rowkey at once; a read over the limit would differ by timing)
	echo "== read all"; c "$a" read t | nots
	echo "== count"; c "$a" count t
	echo "== lookup b"; c "$a" lookup t b | nots
	echo "== lookup missing"; c "$a" lookup t nope | nots
	echo "== prefix z"; c "$a" read t prefix=z | nots
	echo "== start/end"; c "$a" read t start=c end=q | nots
	echo "== count=3"; c "$a" read t count=3 | nots
	echo "== start+count"; c "$a" read t start=h count=2 | nots
	echo "== columns"; c "$a" read t columns=meta:n | nots
	echo "== cells-per-column"; c "$a" read t cells-per-column=1 prefix=b | nots
	echo "== regex"; c "$a" read t regex='[a-c]' | nots
	echo "== keys-only"; c "$a" read t keys-only=true prefix=z | nots
	echo "== reversed"; c "$a" read t reversed=true start=c end=q | nots
	c "$a" deletecolumn t a cf x
	c "$a" deleterow t c
	echo "== after deletes"; c "$a" read t end=d | nots
	c "$a" setgcpolicy t cf maxversions=1
	echo "== gc 1"; c "$a" ls t
	echo "== lookup b after gc"; c "$a" lookup t b cells-per-column=1 | nots
	# GC rules as given: a union comes back a union, max_age is kept
	c "$a" createtable g families=f
	c "$a" setgcpolicy g f maxversions=1 or maxversions=3
	echo "== gc union"; c "$a" ls g
	c "$a" setgcpolicy g f maxage=1d and maxversions=2
	echo "== gc intersection with age"; c "$a" ls g
	c "$a" setgcpolicy g f never
	echo "== gc never"; c "$a" ls g
	c "$a" deletetable g
	c "$a" deletefamily t meta
	echo "== after deletefamily"; c "$a" ls t; c "$a" read t start=g end=i | nots
	c "$a" deleteallrows u
	c "$a" deletetable u
	echo "== ls after deletetable"; c "$a" ls
	echo "== missing table"; c "$a" read nosuch; echo "exit $?"; grep -o 'NotFound\|NOT_FOUND\|not found' "$T/cbt.err" | head -1
}
