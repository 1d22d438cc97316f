# sbxrun started with SIGCHLD ignored (a daemon may hand that on through
# exec): the kernel would reap every child of sbxrun itself, so sbxrun puts
# the default back before its first child (sbxrun(1), EXIT STATUS: the
# script's status is sbxrun's). Before, the run failed with "wait for the
# jail: No child processes" and hung until killed. Judged by the status
# sbxrun exits with and the JSON line it writes. Run for both backends.
. "$(dirname "$0")/jail-lib.sh"

printf 'echo ran; exit 3\n' >"$T/script"
for b in namespaces landlock; do
	timeout 30 "$PY" -c '
import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])
' "$SBXRUN" --backend "$b" --diag fd:3 <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
	is_status 3 "$b: with SIGCHLD ignored, sbxrun exits with the script's status"
	is "$(cat "$T/out")" ran "$b: ... the script ran"
	like "$(cat "$T/diag")" '"exit_code":3' "$b: ... and the JSON line says so"
done

# A caller that ignores signals (nohup, a shell's background job, a
# daemon, a CI runner) hands that on through exec; an ignored signal
# stays ignored through the payload's exec too, so the payload sets every
# one back to its default first (sbxrun(1), SIGNALS). The namespaces payload
# resets only those init's helper found not at their default: a wrong
# note leaves one ignored here. Judged by the status file of the
# command itself (the shell exec's grep, which keeps its dispositions and
# mask): no signal ignored, none blocked. A child reading its shell's
# status instead could catch the shell blocking every signal for a
# moment around its vfork.
printf 'exec grep -E "^Sig(Ign|Blk):" /proc/self/status\n' >"$T/script"
for b in namespaces landlock; do
	timeout 30 "$PY" -c '
import ctypes, os, signal, sys
for s in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT, signal.SIGUSR1, signal.SIGUSR2,
          signal.SIGPIPE, signal.SIGTERM, signal.SIGTSTP, signal.SIGWINCH,
          signal.SIGRTMIN + 3, signal.SIGRTMAX):
    signal.signal(s, signal.SIG_IGN)
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR2, signal.SIGALRM})
# 32 and 33, which glibc keeps for itself and will not set: by the system
# call. The runner of our CI hands them on ignored; the reset of sbxrun,
# through glibc, left them so in the sandbox.
nr = {"x86_64": 13, "aarch64": 134}.get(os.uname().machine)
if nr is not None:
    ign = (ctypes.c_ulong * 8)(1)  # handler SIG_IGN, no flags
    for s in (32, 33):
        if ctypes.CDLL(None).syscall(ctypes.c_long(nr), ctypes.c_long(s), ign, None,
                                     ctypes.c_long(8)) != 0:
            sys.exit("rt_sigaction %d failed" % s)
os.execv(sys.argv[1], sys.argv[1:])
' "$SBXRUN" --backend "$b" --diag fd:3 <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
	is_status 0 "$b: with thirteen signals ignored and two blocked, the run succeeds"
	is "$(sed -n 's/^SigIgn:[[:space:]]*//p' "$T/out")" 0000000000000000 \
	    "$b: ... and the command starts with none ignored"
	is "$(sed -n 's/^SigBlk:[[:space:]]*//p' "$T/out")" 0000000000000000 \
	    "$b: ... and none blocked"
done

done_testing
