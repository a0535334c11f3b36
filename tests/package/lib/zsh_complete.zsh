# zsh zsh_complete.zsh FPATH_DIR BINDIR 'command line'...: for each command
# line, prints "== LINE" then, one a line, the words zsh's completion offers
# at its end, as a user pressing Tab would get them. An interactive zsh runs
# in a pseudo-terminal (zpty) with compinit and the completion functions in
# FPATH_DIR; compadd is wrapped to print what it is given, and a key bound
# to complete-word then says it is done. The markers are written in two
# pieces ("<""hit>") so that the terminal's echo of these lines, which may
# come late on a loaded machine, never reads as a marker.
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1= PROMPT= RPROMPT=; fpath=($1 \$fpath); path=($2 \$path)"
zpty -w z 'autoload -U compinit; compinit -u -D'
zpty -w z 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; typeset -a __hits; builtin compadd -A __hits "$@"; local r=$?; (( $#__hits )) && print -l -- "<""hit>"${^__hits} >/dev/tty; return r }'
zpty -w z 'comptest () { zle complete-word; print -n "<""done>" >/dev/tty; zle send-break }; zle -N comptest; bindkey "^T" comptest'
zpty -w z "print '<''ready>'"
zpty -r z line '*<ready>*'
shift 2
for cmdline in "$@"; do
	zpty -w -n z "$cmdline"$'\x14'
	out=
	while zpty -r z line; do
		out+=$line
		[[ $line == *'<done>'* ]] && break
	done
	print -r -- "== $cmdline"
	print -r -- $out | tr -d '\r' | grep -o '<hit>[^<]*' | sed 's/<hit>//' | sort -u
done
zpty -d z
