#!/usr/bin/env bash
# The advisor's figures are the store's, on every case of the judged panel
# (tests/advisor/panel_store.py): each filled query suggest priced reads and
# returns on a store loaded with the top proposal what suggest said, and the
# write shares the causes are judged by (the busiest server at a time and over
# the run) are the store's own counters' within 5 points.
set -u
: "${ROWKEY:?ROWKEY must point at the built rowkey binary}"
command -v python3 >/dev/null || { echo "python3 missing: skipped"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cases=()
# the sanitizer build checks the mechanism on a few cases; the release build, every one
[ -z "${RK_SANITIZE:-}" ] || cases=(chat_messages_latest_first sparse_numeric_column
	records_without_identity sequential_id_point_gets trades_seller_buyer_order)
python3 "$(dirname "$0")/../advisor/panel_store.py" "$ROWKEY" "$T" "${cases[@]}"
