# Sourced by prepare.sh and prepare-test-tools.sh: `step "what" "roughly how long" command...`
# prints what a long step does and how long it usually takes, then how long it took.
step() {
  local what=$1 expected=$2
  shift 2
  local started=$SECONDS
  echo "prepare: $what (first time about $expected)..."
  "$@"
  echo "prepare: $what done in $((SECONDS - started)) s"
}
