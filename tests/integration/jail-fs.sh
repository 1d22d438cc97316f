# Filesystem rules (sbxrun(1), Filesystem): the workdir is writable and its files
# stay the caller's; nothing else is; strict hides everything but the
# system roots; allowlist adds exactly the named paths; open shows the
# disk read-only. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

ME_U=$(id -u)
ME_G=$(id -g)

# --- writing inside the workdir ---------------------------------------
echo old >"$WD/pre.txt"
echo doomed >"$WD/doomed.txt"
jail_sh 'echo hello >new.txt && mkdir sub && echo deep >sub/f && echo new >pre.txt && rm doomed.txt' \
    -w "$WD"
is_status 0 "a script writing in the workdir exits 0"
is "$(cat "$WD/new.txt" 2>&1)" hello "a file written inside shows on the host"
is "$(cat "$WD/sub/f" 2>&1)" deep "a file in a new subdirectory shows on the host"
is "$(cat "$WD/pre.txt" 2>&1)" new "an existing file is changed on the host"
absent "a file removed inside is gone on the host" "$WD/doomed.txt"
is "$(stat -c %u:%g "$WD/new.txt" 2>&1)" "$ME_U:$ME_G" "a new file belongs to the caller ($ME_U:$ME_G)"
is "$(stat -c %u:%g "$WD/sub" 2>&1)" "$ME_U:$ME_G" "a new directory belongs to the caller"
is "$(stat -c %u:%g "$WD/pre.txt" 2>&1)" "$ME_U:$ME_G" "a rewritten file still belongs to the caller"

# The temp workdir (no -w) is writable too, and goes away after.
jail_sh 'echo x >f && cat f && pwd -P'
is_status 0 "the temporary workdir is writable"
is "$(leftovers)" "" "the temporary workdir is removed after the run"

# --- metadata outside ----------------------------------------------------
# Mode, times and extended attributes of the caller's own file outside the
# workdir stay as they are (Landlock does not judge these calls: the
# landlock backend traps them; the namespaces backend mounts it read-only).
for mode in strict open; do
	new_wd
	victim=$JT/meta-$mode
	echo key >"$victim"
	chmod 600 "$victim"
	touch -d '2020-02-02 02:02:02' "$victim"
	before=$(stat -c '%a %Y' "$victim")
	jail_sh "chmod 644 '$victim'; touch '$victim'
python3 -c \"import os; os.setxattr('$victim', 'user.sbx', b'1')\" 2>/dev/null
echo done" --fs "$mode" -w "$WD"
	is "$(stat -c '%a %Y' "$victim")" "$before" "$mode: mode and times of the caller's file outside stay"
	is "$("$PY" -c 'import os, sys; print(os.listxattr(sys.argv[1]))' "$victim" 2>&1)" "[]" \
	    "$mode: no extended attribute appears on it"
	jail_sh "echo x >own; chmod 751 own; touch -d '2001-01-01' own" --fs "$mode" -w "$WD"
	is "$(stat -c '%a %y' "$WD/own" 2>&1 | cut -c1-14)" "751 2001-01-01" \
	    "$mode: mode and times inside the workdir still change"
done

# --- writing outside ----------------------------------------------------
for mode in strict open; do
	new_wd
	tag=$(uniq_tag w)
	set -- "$HOME/$tag" "/tmp/$tag" "/var/tmp/$tag" "$JT/$tag" "$T/$tag" "${WD}x/$tag" \
	    "/etc/$tag" "/dev/shm/$tag"
	[ -d "$PWHOME" ] && set -- "$@" "$PWHOME/$tag"
	mkdir "${WD}x"
	script=
	for p in "$@"; do
		script="$script
echo pwned >'$p'"
	done
	jail_sh "$script
exit 0" --fs "$mode" -w "$WD"
	is_status 0 "$mode: the writing script ran"
	for p in "$@"; do
		absent "$mode: writing to $(dirname "$p") from inside leaves nothing on the host" "$p"
	done
	absent "$mode: nothing written at the workdir's parent" "$T/$tag"
done

# --- strict: reading outside --------------------------------------------
new_wd
c_home=$(uniq_tag home)
c_var=$(uniq_tag var)
c_tmp=$(uniq_tag tmp)
c_nb=$(uniq_tag neighbour)
echo "$c_home" >"$HOME/notes.txt"
echo "$c_var" >"$JT/outside.txt"
echo "$c_tmp" >"$T/outside.txt"
mkdir "${WD}2"
echo "$c_nb" >"${WD}2/file"
chmod a+r "$HOME/notes.txt" "$JT/outside.txt" "$T/outside.txt" "${WD}2/file"
jail_sh "cat '$HOME/notes.txt' '$JT/outside.txt' '$T/outside.txt' '${WD}2/file'
ls -la '$HOME' '$JT' '$T' '${WD}2'
grep -r sbxjail- '$JT' '$T' 2>&1 | head
exit 0" --fs strict -w "$WD"
is_status 0 "strict: the reading script ran"
unlike "$(output)" "$c_home" "strict: a file in the caller's home is not readable"
unlike "$(output)" "$c_var" "strict: a file in /var/tmp is not readable"
unlike "$(output)" "$c_tmp" "strict: a file in the host's /tmp is not readable"
unlike "$(output)" "$c_nb" "strict: the workdir's neighbour (same name prefix) is not readable"

# System roots: the shell, coreutils, python3 and its standard library.
jail_sh "$SBX_T_PRELUDE
python3 -c 'import json, sqlite3, email, http.server; print(\"PY-IMPORTS-OK\")'
python3 -c 'import sqlite3; print(\"SQL\", sqlite3.connect(\":memory:\").execute(\"select 6*7\").fetchone()[0])'
python3 -c 'import tempfile; f = tempfile.NamedTemporaryFile(); f.write(b\"x\"); f.flush(); print(\"TMP-OK\")'
printf 'b\na\n' | sort | head -n 1 | sed 's/^/SORT:/'
printf abc | sha256sum | cut -c1-16 | sed 's/^/SHA:/'
echo one two three | wc -w | sed 's/^ */WC:/'
t mktemp mktemp
t ls ls -la /usr/bin
t date date
t tmpdir sh -c 'echo x >\"\$TMPDIR/f\" && cat \"\$TMPDIR/f\"'
t tmpwrite sh -c 'echo x >/tmp/f && cat /tmp/f'" --fs strict -w "$WD"
is_status 0 "strict: python3 and coreutils run"
like "$(output)" PY-IMPORTS-OK "strict: python3 imports json, sqlite3, email, http.server"
like "$(output)" "SQL 42" "strict: sqlite3 works in memory"
like "$(output)" TMP-OK "strict: python's tempfile works (private /tmp)"
like "$(output)" "SORT:a" "strict: sort works"
like "$(output)" "SHA:ba7816bf8f01cfea" "strict: sha256sum works"
like "$(output)" "WC:3" "strict: wc works"
is "$(rc_of mktemp):$(rc_of ls):$(rc_of date):$(rc_of tmpdir)" "0:0:0:0" \
    "strict: mktemp, ls, date and writing \$TMPDIR succeed"
if ns_only "a private /tmp at the path /tmp needs a mount namespace" 1; then
	is "$(rc_of tmpwrite)" 0 "strict: the private /tmp is writable"
fi

# A workdir inside the home: the rest of the home does not exist.
mkdir -p "$HOME/proj"
jail_sh "cat '$HOME/notes.txt'; ls -la '$HOME'; echo ok >'$HOME/proj/inside'; exit 0" \
    --fs strict -w "$HOME/proj"
is_status 0 "strict, workdir in the home: the script ran"
unlike "$(output)" "$c_home" "strict, workdir in the home: the rest of the home is not readable"
is "$(cat "$HOME/proj/inside" 2>&1)" ok "strict, workdir in the home: the workdir is writable"

# --- sbxrun's own cleanup is no way out ------------------------------------------
# With --interp the script lives in WORKDIR/.sbxrun and sbxrun removes it
# afterwards, outside the jail: swapping .sbxrun for a symlink must not
# make sbxrun delete a file elsewhere.
new_wd
mkdir -p "$JT/victim"
echo precious >"$JT/victim/main.py"
echo precious >"$JT/victim/main.sh"
printf 'import os\nos.rename(".sbxrun", "sbxrun-moved")\nos.symlink("%s", ".sbxrun")\n' \
    "$JT/victim" >"$T/swap.py"
jail --interp python3 -w "$WD" <"$T/swap.py"
is_status 0 "--interp: the script swapping .sbxrun for a symlink ran"
is "$(cat "$JT/victim/main.py" 2>&1)" precious \
    "--interp: sbxrun's cleanup does not follow a symlink planted in the workdir"

# --- allowlist ----------------------------------------------------------
new_wd
c_a=$(uniq_tag allowed)
c_d=$(uniq_tag deep)
c_b=$(uniq_tag data2)
c_c=$(uniq_tag data1x)
c_f=$(uniq_tag single)
c_g=$(uniq_tag single2)
mkdir -p "$JT/data1/sub" "$JT/data2" "$JT/data1x"
echo "$c_a" >"$JT/data1/file"
echo "$c_d" >"$JT/data1/sub/deep"
echo "$c_b" >"$JT/data2/file"
echo "$c_c" >"$JT/data1x/file"
echo "$c_f" >"$JT/single.txt"
echo "$c_g" >"$JT/single.txt2"
chmod -R a+rX "$JT"
tag=$(uniq_tag w)
jail_sh "cat '$JT/data1/file' '$JT/data1/sub/deep' '$JT/data2/file' '$JT/data1x/file'
cat '$JT/single.txt' '$JT/single.txt2'
ls '$JT'
echo pwned >'$JT/data1/$tag'
echo pwned >'$JT/single.txt'
exit 0" --fs allowlist -r "$JT/data1" -r "$JT/single.txt" -w "$WD"
is_status 0 "allowlist: the reading script ran"
like "$(output)" "$c_a" "allowlist: a file in the -r directory is readable"
like "$(output)" "$c_d" "allowlist: a file deeper in the -r directory is readable"
unlike "$(output)" "$c_b" "allowlist: the neighbour directory is not readable"
unlike "$(output)" "$c_c" "allowlist: a neighbour sharing the name prefix is not readable"
like "$(output)" "$c_f" "allowlist: a -r file is readable"
unlike "$(output)" "$c_g" "allowlist: the -r file's neighbour is not readable"
absent "allowlist: the -r directory is not writable" "$JT/data1/$tag"
is "$(cat "$JT/single.txt")" "$c_f" "allowlist: the -r file is unchanged"

# Strict ignores the same directory (it is not declared readable there).
jail_sh "cat '$JT/data1/file'; exit 0" --fs strict -w "$WD"
unlike "$(output)" "$c_a" "strict: a directory readable only under allowlist stays hidden"

# --- open -----------------------------------------------------------------
new_wd
c_o=$(uniq_tag open)
mkdir -p "$JT/open"
echo "$c_o" >"$JT/open/file"
chmod -R a+rX "$JT/open"
jail_sh "cat '$JT/open/file' '$HOME/notes.txt' '$JT/data2/file'
echo new >'$JT/open/file'
exit 0" --fs open -w "$WD"
is_status 0 "open: the reading script ran"
like "$(output)" "$c_o" "open: a file elsewhere on disk (/var/tmp) is readable"
like "$(output)" "$c_home" "open: a plain file in the caller's home is readable"
like "$(output)" "$c_b" "open: any directory is readable"
is "$(cat "$JT/open/file")" "$c_o" "open: a file readable elsewhere is not writable"

# --- namespaces: the jail's own /dev -------------------------------------
# A directory of the new root, read-only with it (no mount of its own):
# only the plan's entries, nothing can be added, the device nodes work,
# /dev/shm is writable and private. The host's /dev and /dev/shm are
# checked for what the script tried to make.
if ns_only "the jail's own /dev" 11; then
	new_wd
	tag=$(uniq_tag dev)
	jail_sh "$SBX_T_PRELUDE
echo L:\$(ls /dev | tr '\n' ' ')
t mk sh -c 'echo x >/dev/$tag'
t mkd mkdir /dev/$tag.d
t null sh -c 'echo x >/dev/null'
t full sh -c 'echo x >/dev/full'
t rnd sh -c 'test \$(head -c 16 /dev/urandom | wc -c) = 16'
t shm sh -c 'echo x >/dev/shm/$tag && test -s /dev/shm/$tag'
echo M:\$(awk '\$5 == \"/dev\"' /proc/self/mountinfo | wc -l)
exit 0" -w "$WD"
	is_status 0 "the /dev script ran"
	is "$(sed -n 's/^L://p' "$T/out")" \
	    "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero" \
	    "/dev holds only the plan's entries"
	absent "a file written in /dev appears nowhere on the host" "/dev/$tag"
	absent "a directory made in /dev appears nowhere on the host" "/dev/$tag.d"
	failed_inside "writing a new file in /dev fails" mk
	failed_inside "making a directory in /dev fails" mkd
	is "$(rc_of null)" 0 "/dev/null takes a write"
	failed_inside "/dev/full refuses a write" full
	is "$(rc_of rnd)" 0 "/dev/urandom gives bytes"
	absent "a file written in the jail's /dev/shm is not in the host's" "/dev/shm/$tag"
	is "$(sed -n 's/^M://p' "$T/out")" 0 "/dev is no mount of its own (the new root's directory)"
fi

done_testing
