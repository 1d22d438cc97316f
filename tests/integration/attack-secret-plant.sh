# Nothing is planted for later, secrets included: with the home as the
# workdir, a secret of the list that does not exist when the run starts
# (~/.aws, ~/.config/gcloud) could be made by the sandbox as a link to a
# file of the workdir (~/.aws/credentials -> ../proj/notes.txt); the
# caller's tools later write the real secret through it, and the next
# run reads it there. Now what the run makes at a missing secret inside
# the workdir is moved aside after it, with a warning, and so is a
# symlink it put on the way. Judged on the host. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

# 1. ~/.aws made, with credentials a link into the project.
mkdir -p "$HOME/proj"
jail_sh "mkdir .aws && ln -s ../proj/notes.txt .aws/credentials; exit 0" -w "$HOME"
is_status 0 "aws: the planting script ran"
absent "aws: no .aws is left where the caller's tools look" "$HOME/.aws"
like "$(jget warnings)" "the sandbox made .aws" "aws: a warning names it"
# The caller, later (what aws configure does).
mkdir -p "$HOME/.aws"
echo AKIA-SECRET >"$HOME/.aws/credentials"
absent "aws: the caller's secret did not land in the project" "$HOME/proj/notes.txt"
jail_sh "cat proj/notes.txt .aws/credentials 2>&1; exit 0" -w "$HOME"
unlike "$(output)" AKIA-SECRET "aws: the next run does not read it"
rm -rf "$HOME"/.[!.]* "$HOME"/proj "$HOME"/d

# 2. A directory on the way: ~/.config made a link to a directory of the
# workdir holding gcloud/ (the protect list off, so only the secret list
# speaks).
jail_sh "mkdir -p d/gcloud && ln -s d .config; exit 0" -w "$HOME" --no-protect-defaults
is_status 0 "gcloud: the planting script ran"
nok "gcloud: no .config symlink is left" [ -L "$HOME/.config" ]
like "$(jget warnings)" "the sandbox made .config" "gcloud: a warning names the link"
rm -rf "$HOME"/.[!.]* "$HOME"/d

# 3. The secret's own name a link to a directory of the workdir.
jail_sh "mkdir -p proj/kube && ln -s proj/kube .kube; exit 0" -w "$HOME"
is_status 0 "kube: the planting script ran"
nok "kube: no .kube symlink is left" [ -L "$HOME/.kube" ]
rm -rf "$HOME"/.[!.]* "$HOME"/proj

# 4. A read-write mount's source holding a missing secret (the landlock
# backend makes no mounts).
if ns_only "a read-write mount's source" 3; then
	mkdir -p "$HOME/.config"
	new_wd
	jail_sh "mkdir -p cfg/gcloud && ln -s ../../x cfg/gcloud/creds; exit 0" \
	    -w "$WD" -m "$HOME/.config:cfg:rw"
	is_status 0 "rw mount: the planting script ran"
	absent "rw mount: no gcloud is left in the source" "$HOME/.config/gcloud"
	like "$(jget warnings)" "the sandbox made gcloud" "rw mount: a warning names it"
	rm -rf "$HOME"/.[!.]*
fi

# 5. Controls: other new names stay; an existing secret is not moved.
jail_sh "mkdir newdir; echo fine >newdir/f; exit 0" -w "$HOME"
is_status 0 "controls: the script ran"
is "$(cat "$HOME/newdir/f" 2>&1)" fine "control: a new directory stays"
rm -rf "$HOME"/newdir
mkdir -p "$HOME/.ssh"
echo key >"$HOME/.ssh/id_test"
jail_sh "exit 0" -w "$HOME"
is "$(cat "$HOME/.ssh/id_test" 2>&1)" key "control: an existing secret stays where it is"
rm -rf "$HOME"/.[!.]*

done_testing
