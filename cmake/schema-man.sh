#!/bin/sh
# schema-man.sh SCHEMA_MD VERSION OUT: the schema language's manual page,
# rowkey-schema(5), from docs/schema.md (its one source) through lowdown:
# a NAME section first, the document's own sections one level up, SEE ALSO.
set -eu
md=$1 version=$2 out=$3
{
	printf '# NAME\n\nrowkey-schema - the rowkey schema language: typed fields and a row-key template\n\n'
	printf '# DESCRIPTION\n\n'
	# drop the title line; "## 1. Tutorial" becomes a section, "### ..." a subsection
	sed -e '1{/^# /d;}' -e 's/^## /# /' -e 's/^### /## /' -e 's/^#### /### /' "$md"
	printf '\n# SEE ALSO\n\nrowkey(1), rowkey-encode(1), rowkey-decode(1), rowkey-describe(1), rowkey-explain(1), rowkey-query(1)\n'
} | lowdown -s -Tman -M "title=rowkey-schema" -M section=5 -M "source=rowkey $version" \
	-M "volume=rowkey manual" -o "$out"
