#!/usr/bin/env bash
# The manual pages and shell completions, as installed (cmake --install into
# a fresh DESTDIR):
# - rowkey(1), rowkey-COMMAND(1) for every command, rowkey-schema(5): man -l
#   renders each without a warning, and man finds them by name;
# - one source: every option `rowkey CMD --help` lists is in the man page
#   and in both completions, and nothing else is;
# - bash and zsh (Tab in a real interactive zsh) offer the commands, the
#   options, choices, workloads, and the tables of the store named by --db.
set -u
: "${ROWKEY:?}" "${RK_BINARY_DIR:?}" "${RK_SOURCE_DIR:?}"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

prefix=$(sed -n 's/^CMAKE_INSTALL_PREFIX:PATH=//p' "$RK_BINARY_DIR/CMakeCache.txt")
DESTDIR="$T/stage" cmake --install "$RK_BINARY_DIR" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "cmake --install"; }
ROOT="$T/stage$prefix"
MAN="$ROOT/share/man"
BASH_COMP="$ROOT/share/bash-completion/completions/rowkey"
ZSH_DIR="$ROOT/share/zsh/site-functions"
[ -f "$BASH_COMP" ] || fail "no bash completion at $BASH_COMP"
[ -f "$ZSH_DIR/_rowkey" ] || fail "no zsh completion in $ZSH_DIR"
R="$ROOT/bin/rowkey"

# ---- man pages ----
commands=$("$R" --help | awk '/^commands:/{on=1; next} on && /^$/{exit} on {print $1}')
[ "$(echo "$commands" | wc -l)" -ge 19 ] || fail "commands from rowkey --help: $commands"
render() { # render FILE: the page as text; troff's warnings fail the test
	MANWIDTH=80 man -l "$1" >"$T/page" 2>"$T/man.err" || fail "man -l $1"
	[ ! -s "$T/man.err" ] || { cat "$T/man.err"; fail "warnings rendering $1"; }
}
render "$MAN/man1/rowkey.1"
grep -q "^NAME" "$T/page" && grep -q "rowkey - row-key design" "$T/page" || fail "rowkey(1) NAME"
for c in $commands; do
	grep -q "rowkey-$c(1)" "$T/page" || fail "rowkey(1) does not point at rowkey-$c(1)"
done
# options: what --help lists, in order ("-f, --family F[:V]" -> "--family")
help_opts() { "$R" "$@" --help | awk '/^options:/{on=1; next} /^(examples:|The manual page)/{exit} on' |
	sed -n 's/^  \(-., \|    \)\(--[a-z-]*\).*/\2/p'; }
for c in $commands; do
	page="$MAN/man1/rowkey-$c.1"
	[ -f "$page" ] || fail "no manual page for $c"
	render "$page"
	summary=$("$R" --help | sed -n "s/^  $c  *//p")
	tr -s ' \n' ' ' <"$T/page" | grep -qF -- "rowkey-$c - $summary" || fail "rowkey-$c(1) NAME is not '$summary'"
	help_opts "$c" >"$T/help.opts"
	[ -s "$T/help.opts" ] || fail "no options in rowkey $c --help"
	sed -n 's/^       \(-., \)\{0,1\}\(--[a-z-]*\).*/\2/p' "$T/page" >"$T/man.opts"
	diff "$T/help.opts" "$T/man.opts" >/dev/null || { diff "$T/help.opts" "$T/man.opts"; fail "rowkey $c: --help and the man page list different options"; }
	# the description --help prints is the page's
	first=$("$R" "$c" --help | awk 'seen && NF {print; exit} !NF {seen=1}' | cut -c1-40)
	tr -s ' \n' ' ' <"$T/page" | grep -qF -- "$first" || fail "rowkey-$c(1) lacks the description '$first'"
done
# docs/schema.md's widest tables do not fit 80 columns (tbl says so); the page still renders
MANWIDTH=80 man -l "$MAN/man5/rowkey-schema.5" 2>/dev/null >"$T/page" || fail "man -l rowkey-schema.5"
tr -s ' \n' ' ' <"$T/page" | grep -qF "rowkey-schema - the rowkey schema language" || fail "rowkey-schema(5) NAME"
grep -q "Grammar (EBNF)" "$T/page" && grep -qF "bucket(16, xxh3(user))" "$T/page" || fail "rowkey-schema(5) body"
# man finds the pages by name in the installed tree
MANPATH="$MAN" man -w rowkey-create >/dev/null 2>&1 || fail "man -w rowkey-create"
MANPATH="$MAN" man -w 5 rowkey-schema >/dev/null 2>&1 || fail "man -w 5 rowkey-schema"

# ---- a store with two tables, for table names ----
DB="$T/db"
"$R" create --db "$DB" events -f d >/dev/null && "$R" create --db "$DB" users -f d >/dev/null || fail "create"
[ "$("$R" stats --db "$DB" --tables | tr '\n' ' ')" = "events users " ] || fail "stats --tables"

# ---- bash ----
cat >"$T/bash.sh" <<BASH
source "$BASH_COMP"
comp() { COMP_WORDS=("\$@"); COMP_CWORD=\$((\${#COMP_WORDS[@]} - 1)); _rowkey; echo "\${COMPREPLY[*]}"; }
BASH
bcomp() { bash -c "source '$T/bash.sh'; comp '$R' $*"; }
expect() { # expect WHAT GOT WANT
	[ "$2" = "$3" ] || fail "$1 offers '$2', wanted '$3'"
}
expect "bash: rowkey cr" "$(bcomp cr)" "create"
expect "bash: rowkey create --sp" "$(bcomp create --sp)" "--split --splits --split-threshold"
expect "bash: rowkey encode --format c" "$(bcomp encode --format c)" "csv"
expect "bash: rowkey analyze -w m" "$(bcomp analyze -w m)" "messages"
expect "bash: rowkey scan --db DB e" "$(bcomp scan --db "$DB" e)" "events"
expect "bash: rowkey scan --db=DB u" "$(bcomp scan --db = "$DB" u)" "users"
expect "bash: rowkey regions --db DB" "$(bcomp regions --db "$DB" "''")" "events users move split balance"
expect "bash: rowkey scan --db DB events" "$(bcomp scan --db "$DB" events "''")" ""
expect "bash: rowkey compare --engine" "$(bcomp compare --engine "''")" "sim store both"
for c in $commands; do
	want=$(help_opts "$c" | sort | tr '\n' ' ')
	got=$(bcomp "$c" -- | tr ' ' '\n' | grep -- '^--' | sort | tr '\n' ' ')
	expect "bash: rowkey $c --" "$got" "$want"
done

# ---- zsh: Tab in an interactive zsh, every line in one session ----
mkdir -p "$T/bin" && ln -s "$R" "$T/bin/rowkey"
lines=("rowkey cr" "rowkey create --sp" "rowkey encode --format " "rowkey analyze -w m"
	"rowkey scan --db $DB " "rowkey regions --db=$DB ")
for c in $commands; do lines+=("rowkey $c --"); done
timeout 120 zsh -f "$RK_SOURCE_DIR/tests/package/lib/zsh_complete.zsh" "$ZSH_DIR" "$T/bin" "${lines[@]}" \
	>"$T/zsh.out" || fail "zsh completion session"
zcomp() { awk -v l="== rowkey $*" '$0 == l {on=1; next} /^== / {on=0} on' "$T/zsh.out" | tr '\n' ' '; }
expect "zsh: rowkey cr" "$(zcomp cr)" "create "
expect "zsh: rowkey create --sp" "$(zcomp create --sp)" "--split --split-threshold --splits "
expect "zsh: rowkey encode --format " "$(zcomp "encode --format ")" "csv jsonl tsv "
expect "zsh: rowkey analyze -w m" "$(zcomp analyze -w m)" "messages "
expect "zsh: rowkey scan --db DB " "$(zcomp "scan --db $DB ")" "events users "
expect "zsh: rowkey regions --db=DB " "$(zcomp "regions --db=$DB ")" "balance events move split users "
for c in $commands; do
	want=$(help_opts "$c" | sort | tr '\n' ' ')
	got=$(zcomp "$c" -- | tr ' ' '\n' | grep -- '^--' | sort | tr '\n' ' ')
	expect "zsh: rowkey $c --" "$got" "$want"
done
echo "ok: $(echo "$commands" | wc -l) commands: pages, --help, bash and zsh agree"
