# Sourced by the set-up scripts: serialise set-up steps on one venv (several shells -- or several
# developers sharing a checkout -- may run `make test` at once). The lock is released when the
# sourcing script exits. Needs VENV and log().
mkdir -p "$VENV"
exec 9>"$VENV/.setup.lock"
if ! flock -n 9; then
    log "waiting for another set-up step on $VENV to finish"
    flock 9
fi
