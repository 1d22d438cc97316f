# The installed files, from the build tree: "make install" puts the
# binary, the profiles and the man pages where configure said, the binary
# and the man pages name the configured profiles directory, and each
# completion file lands in a directory its shell searches.
. "$SRCDIR/tests/integration/lib.sh"

: "${BUILDDIR:?BUILDDIR must name the build tree (make check sets it)}"

dirs=$(make -s -C "$BUILDDIR" print-installdirs) || {
	fail "make print-installdirs"
	done_testing
	exit
}
dir_of() {
	printf '%s\n' "$dirs" | sed -n "s/^$1 //p"
}

D=$T/dest
make -s -C "$BUILDDIR" install DESTDIR="$D" >"$T/install.log" 2>&1
is "$?" 0 "make install DESTDIR=... succeeds"
ok "the binary is in bindir" test -x "$D$(dir_of bindir)/sbxrun"
ok "the profiles are in the profiles directory" test -f "$D$(dir_of profilesdir)/default.ini"
ok "the binary looks for profiles where they were installed" \
    grep -q -F "$(dir_of profilesdir)" "$D$(dir_of bindir)/sbxrun"
ok "sbxrun(1) is installed" test -f "$D$(dir_of man1dir)/sbxrun.1"
ok "sbxrun(1) names the installed profiles directory" \
    grep -q -F "$(dir_of profilesdir)" "$D$(dir_of man1dir)/sbxrun.1"
for f in bash:sbxrun zsh:_sbxrun fish:sbxrun.fish; do
	ok "the ${f%%:*} completion is installed" test -f "$D$(dir_of "${f%%:*}compdir")/${f#*:}"
done

# Where each shell looks is checked for the default prefixes only: with
# another --prefix the user chooses the directories (--with-*compdir).
prefix=$(dir_of prefix)
case $prefix in
/usr | /usr/local) ;;
*)
	diag "prefix $prefix: the shells' search paths are checked for /usr and /usr/local only"
	done_testing
	exit
	;;
esac

# in_list DIR LIST: DIR is one of the blank-separated LIST.
in_list() {
	case " $2 " in *" $1 "*) return 0 ;; esac
	return 1
}
z=$(dir_of zshcompdir)
ok "zsh searches the zsh completion directory ($z)" \
    in_list "$z" "$(zsh -fc 'print -r -- $fpath')"
f=$(dir_of fishcompdir)
ok "fish searches the fish completion directory ($f)" \
    in_list "$f" "$(env -u XDG_DATA_DIRS fish -c 'echo $fish_complete_path')"
b=$(dir_of bashcompdir)
# bash-completion loads NAME from each of ${XDG_DATA_DIRS:-/usr/local/share:/usr/share}
# followed by /bash-completion/completions, and from its own directory.
bpath=$(printf '%s\n' "${XDG_DATA_DIRS:-/usr/local/share:/usr/share}" | tr ':' '\n' |
	sed 's|$|/bash-completion/completions|' | tr '\n' ' ')
bpath="$bpath $(pkg-config --variable=completionsdir bash-completion 2>/dev/null)"
ok "bash-completion searches the bash completion directory ($b)" in_list "$b" "$bpath"

done_testing
