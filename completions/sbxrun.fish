# fish completion for sbxrun(1): every option, the values of --backend, --fs,
# --network and --diag, profile names for -p, files and directories where an
# option takes a path, then COMMAND with its own completion.

# Profile names that "sbxrun -p NAME" finds.
function __sbxrun_profiles
    set -l dirs
    if string match -q -- '/*' "$XDG_CONFIG_HOME"
        set dirs $XDG_CONFIG_HOME/sbxrun/profiles
    else
        set dirs ~/.config/sbxrun/profiles
    end
    set -a dirs /etc/sbxrun/profiles
    set -l bin (command -s sbxrun)
    if test -n "$bin"
        set -a dirs (string replace -r '/[^/]*$' '' -- $bin[1])/../share/sbxrun/profiles
    end
    set -a dirs /usr/local/share/sbxrun/profiles /usr/share/sbxrun/profiles
    for d in $dirs
        for f in $d/*.ini
            string replace -r '^.*/([^/]*)\.ini$' '$1' -- $f
        end
    end | sort -u
end

# Prints the index, among the tokens before the cursor, of COMMAND: the word
# after "--" or the first word that is neither an option nor an option's
# argument, as getopt_long("+...") reads them. Fails when there is none yet.
function __sbxrun_command_index
    set -l tokens (commandline -opc)
    set -l with_arg --profile --backend --docker-image --docker-keep --docker-rm --fs --allow-read --deny-read \
        --protect --mount --workdir --network --listen --connect --loopback \
        --allow-host --deny-host --allow-method --env --pass-env --timeout --memory \
        --pids --cpu --file-size --open-files --interp --script-name --trace --diag
    set -l want 0
    set -l i 2
    while test $i -le (count $tokens)
        set -l w $tokens[$i]
        if test $want -eq 1
            set want 0
        else if test "$w" = --
            echo (math $i + 1)
            return 0
        else if string match -qr -- '^--' $w
            if contains -- $w $with_arg
                set want 1
            end
        else if string match -qr -- '^-.' $w
            set -l chars (string split '' -- (string sub -s 2 -- $w))
            set -l k 1
            for c in $chars
                if contains -- $c p r m w e t
                    if test $k -eq (count $chars)
                        set want 1
                    end
                    break
                end
                set k (math $k + 1)
            end
        else
            echo $i
            return 0
        end
        set i (math $i + 1)
    end
    return 1
end

function __sbxrun_no_command
    not __sbxrun_command_index >/dev/null
end

# Completes COMMAND and its arguments with COMMAND's own completions.
function __sbxrun_complete_command
    set -l tokens (commandline -opc)
    set -l i (__sbxrun_command_index)
    if test $i -gt (count $tokens)
        __fish_complete_command
    else
        __fish_complete_subcommand --commandline $tokens[$i..-1] (commandline -ct)
    end
end

complete -c sbxrun -f -n 'not __sbxrun_no_command' -a '(__sbxrun_complete_command)'
complete -c sbxrun -f -n '__sbxrun_no_command; and not string match -q -- "-*" (commandline -ct)' \
    -a '(__fish_complete_command)'

set -l c complete -c sbxrun -n __sbxrun_no_command

# Policy.
$c -s p -l profile -r -a '(__sbxrun_profiles)' -d 'load a profile (repeatable, applied in order)'
$c -l backend -x -a 'auto namespaces landlock seatbelt docker none' -d 'force a backend'
$c -l docker-image -x -d 'image for the docker backend'
$c -l docker-keep -x -d 'run in the long-lived container NAME (made on first use, kept after)'
$c -l docker-rm -x -d 'remove the kept container NAME and exit'
$c -l fs -x -a 'strict allowlist open' -d 'filesystem mode'
$c -s r -l allow-read -r -F -d 'add a readable path (allowlist mode)'
$c -l deny-read -r -F -d 'add a never-readable path'
$c -l protect -r -F -d 'keep PATH (relative to the workdir) read-only'
$c -l no-protect-defaults -d 'drop the built-in protect list'
$c -s m -l mount -r -F -d 'mount SRC at WORKDIR/TARGET: SRC:TARGET[:ro|:rw]'
$c -s w -l workdir -x -a '(__fish_complete_directories)' -d 'the workdir (default: a fresh temporary directory)'
$c -l keep -d 'keep the temporary workdir'
$c -l network -x -a 'on off' -d 'outbound network'
$c -l listen -x -d 'ports a server inside may bind: P[,P..]'
$c -l connect -x -d 'remote TCP ports that may be reached: P[,P..]'
$c -l loopback -x -d 'host loopback TCP ports given back: P[,P..]'
$c -l allow-host -x -a '(__fish_print_hostnames)' -d 'host[:port] the built-in proxy allows'
$c -l deny-host -x -a '(__fish_print_hostnames)' -d 'host[:port] the built-in proxy refuses'
$c -l allow-method -x -a 'GET HEAD OPTIONS POST PUT PATCH DELETE' -d 'plain-HTTP methods the proxy passes'
$c -s e -l env -x -a '(set -xn | string replace -r "\$" "=")' -d 'set a variable in the sandbox: NAME=VALUE'
$c -l pass-env -x -a '(set -xn)' -d 'copy a variable from the caller, if set'
$c -s t -l timeout -x -d 'kill the whole tree after DUR (exit 124)'
$c -l memory -x -d 'memory limit (K, M, G, T)'
$c -l pids -x -d 'process limit'
$c -l cpu -x -d 'CPU time limit (ms, s, m, h)'
$c -l file-size -x -d 'largest file that may be written'
$c -l open-files -x -d 'open file descriptor limit'
$c -l allow-degraded -d 'run even if some requested rule is not enforceable'

# Running.
$c -l interp -x -a '(__fish_complete_command)' -d 'store the script as a file and run PROG FILE'
$c -l script-name -x -d 'name of that file (default main.py, main.js, main.sh or main)'
$c -l trace -r -F -d 'a JSON Lines trace of what the run touched'
$c -l trace-all -d 'keep the noise in the trace too'
$c -l diag -r -a 'stderr none fd:' -d 'diagnostics line to stderr, fd:N, PATH or none'

# Inspection.
$c -l print-policy -d 'print the merged policy as a profile, each value with its origin, and exit'
$c -l print-backend -d 'print what the backend would build and exit'
$c -l probe -d "print this machine's isolation capabilities and exit"
$c -l list-profiles -d 'list the profiles -p NAME finds (name, file, first comment line) and exit'
$c -l selftest -d "try known escapes against this machine's jail (not built yet)"
$c -s v -l verbose -d 'say what is being built and each refusal'
$c -s q -l quiet -d "print no messages of sbxrun's own"
$c -s h -l help -d 'print this help and exit'
$c -s V -l version -d 'print the version and what was built in, and exit'
