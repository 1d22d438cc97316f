# The jail's system call rules as text: every shape of the common filter
# (the sandbox's) and of the host filter (the landlock backend's), printed
# by sbx-bpfgen --pfc from the very builders a run uses, against the
# checked-in tests/golden/seccomp/rules.pfc (the rules one after another,
# as libseccomp prints them at optimization level 1). A change to a rule
# shows as a diff in review; after a deliberate one, regenerate with
#
#	./sbx-bpfgen --pfc > tests/golden/seccomp/rules.pfc
#
# The text is libseccomp's pseudo code for x86_64: another architecture or
# libseccomp release prints other numbers or order, and is skipped with
# the reason.
. "$SRCDIR/tests/integration/lib.sh"

: "${BUILDDIR:?BUILDDIR must name the build tree (make check sets it)}"

want=$GOLDEN/seccomp/rules.pfc
"$BUILDDIR/sbx-bpfgen" --pfc >"$T/rules.pfc" 2>"$T/err"
is "$?" 0 "sbx-bpfgen --pfc prints the rules"
ver=$(pkg-config --modversion libseccomp 2>/dev/null)
if [ "$(uname -m)" != x86_64 ] || [ "$ver" != 2.5.4 ]; then
	skip "the golden text is libseccomp 2.5.4's for x86_64 (here $(uname -m), libseccomp ${ver:-unknown})"
else
	if cmp -s "$T/rules.pfc" "$want"; then
		pass "the rules match $want"
	else
		fail "the rules match $want"
		diff -u "$want" "$T/rules.pfc" | head -n 40 | sed 's/^/# /'
	fi
fi
# The programs a run loads are those rules as a binary search on the call
# number (libseccomp's optimization level 2, a third less time to load):
# they must decide as the rules read one after another, on every call
# number and on the argument words the rules compare against. And each
# pair a jail loads as one program (bpfmerge.c) must decide as the kernel
# decides with the two plain programs loaded one after the other.
"$BUILDDIR/sbx-bpfgen" --check >"$T/check" 2>&1
st=$?
is "$st" 0 "sbx-bpfgen --check: every shape's search and every merged pair decides as its plain programs"
[ "$st" = 0 ] || sed 's/^/# /' "$T/check"
like "$(cat "$T/check")" "33 shapes, " "... for all 33 (8 common, 15 host, 10 merged pairs)"
# What the text must say whatever the release: the calls every shape
# refuses, by name.
for call in mount_setattr open_tree io_uring_setup bpf userfaultfd; do
	n=$(grep -c "filter for syscall \"$call\"" "$T/rules.pfc")
	is "$n" 4 "each common shape judges $call"
done
done_testing
