#!/bin/sh
# `npm run demo`: a real run of the built-in sim agent (no model, no key) with 3 workers, in a fresh
# git repository so that each worker has its own worktree, as a user's project gets; then the next
# commands to try on that project.
here=$(cd "$(dirname "$0")/.." && pwd)
# A clone after `npm ci` may not be built yet; a built one is not built again.
[ -f "$here/dist/cli/team.cjs" ] || (cd "$here" && npm run build) || exit 1
project=$(mktemp -d "${TMPDIR:-/tmp}/teamline-demo.XXXXXX") || exit 1
git -C "$project" init --quiet &&
  git -C "$project" config user.name "teamline demo" &&
  git -C "$project" config user.email "demo@teamline.invalid" &&
  printf '# demo project\n' >"$project/README.md" &&
  git -C "$project" add README.md &&
  git -C "$project" commit --quiet -m "demo project" || exit 1
node "$here/dist/cli/team.cjs" 3:executor "demo: add input validation to the API" --cwd "$project" --agent sim
code=$?
# `team` when it is on the PATH (README: Install), else this clone's CLI by its path.
if command -v team >/dev/null 2>&1; then team=team; else team="node $here/dist/cli/team.cjs"; fi
cat >&2 <<NEXT

demo project: $project
next, try:
  $team status --cwd $project
  $team report --cwd $project
  $team land --cwd $project
NEXT
exit $code
