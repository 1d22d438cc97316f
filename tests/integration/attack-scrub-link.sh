# A protected path that does not exist is moved aside after the run if
# the run made it (sbxrun.profile(5), the built-in list). The clean-up
# reaches it from the workdir following no symlink; a sandbox that made a
# directory on the way a symlink (~/.config -> cfg, ci -> real) used to
# make it fail with ELOOP and skip the name without a word, so that the
# caller's git later read cfg/git/config and ran its core.fsmonitor. Now
# a symlink met on the way, which the run made (a path through a symlink
# of the caller's is not scrubbed), is moved aside with a warning. The
# same for an existing ~/.config renamed away and replaced by a link, and
# (landlock) for a watched ~/.config/git below it. Judged on the host.
# Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

PLANT='mkdir -p cfg/git cfg/fish
printf "[core]\n\tfsmonitor = \"touch /tmp/pwned; false\"\n" >cfg/git/config
echo "echo EVIL" >cfg/fish/config.fish'

# 1. The home as the workdir, no ~/.config: the sandbox makes it a link.
jail_sh "$PLANT
ln -s cfg .config
exit 0" -w "$HOME"
is_status 0 "home: the planting script ran"
is "$(cat "$HOME/cfg/fish/config.fish" 2>&1)" "echo EVIL" \
    "home: what the sandbox made elsewhere stays (control)"
nok "home: no .config symlink is left" [ -L "$HOME/.config" ]
absent "home: no git config is reached through .config" "$HOME/.config/git/config"
absent "home: no fish config is reached through .config" "$HOME/.config/fish/config.fish"
ok "home: the link was moved aside next to it" [ -L "$HOME/.config.sbxrun-untrusted.1" ]
like "$(jget warnings)" "the sandbox made .config, where nothing may be made" \
    "home: a warning names the link"
rm -rf "$HOME"/.[!.]* "$HOME"/cfg

# 2. The same with ~/.config there: renamed away, a link put in its place
# (the namespaces backend; under landlock the rename is refused).
mkdir -p "$HOME/.config/htop"
echo mine >"$HOME/.config/htop/htoprc"
jail_sh "$PLANT
mv .config .config.mine && cp -a .config.mine/. cfg/ && ln -s cfg .config
exit 0" -w "$HOME"
is_status 0 "home, .config there: the planting script ran"
nok "home, .config there: no .config symlink is left" [ -L "$HOME/.config" ]
absent "home, .config there: no git config is reached through .config" \
    "$HOME/.config/git/config"
rm -rf "$HOME"/.[!.]* "$HOME"/cfg

# 3. A watched (landlock) or read-only (namespaces) ~/.config/git: the
# directory above renamed away and a link put in its place.
mkdir -p "$HOME/.config/git"
printf '[user]\n\tname = caller\n' >"$HOME/.config/git/config"
jail_sh "$PLANT
mv .config .config.mine && ln -s cfg .config
exit 0" -w "$HOME"
is_status 0 "home, .config/git there: the planting script ran"
nok "home, .config/git there: no .config symlink is left" [ -L "$HOME/.config" ]
unlike "$(cat "$HOME/.config/git/config" 2>&1)" fsmonitor \
    "home, .config/git there: the sandbox's git config is not reached"
rm -rf "$HOME"/.[!.]* "$HOME"/cfg

# 4. --protect ci/deploy.sh in a project without ci/: ci made a link.
new_wd
jail_sh "mkdir real; echo evil >real/deploy.sh; ln -s real ci; exit 0" \
    -w "$WD" --protect ci/deploy.sh
is_status 0 "--protect: the planting script ran"
nok "--protect: no ci symlink is left" [ -L "$WD/ci" ]
absent "--protect: no ci/deploy.sh is reached through ci" "$WD/ci/deploy.sh"
like "$(jget warnings)" "the sandbox made ci, where nothing may be made" \
    "--protect: a warning names the link"

# 5. Controls: a file on the way leads nowhere and stays; a link of the
# caller's on the way is the caller's and stays.
new_wd
mkdir "$WD/shared"
ln -s shared "$WD/tools"
jail_sh "echo plain >ci; echo made >shared/run.sh; exit 0" \
    -w "$WD" --protect ci/deploy.sh --protect tools/run.sh
is_status 0 "controls: the script ran"
is "$(cat "$WD/ci" 2>&1)" plain "control: a file on the way is left alone"
ok "control: the caller's own link on the way stays" [ -L "$WD/tools" ]

done_testing
