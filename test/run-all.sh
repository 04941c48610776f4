#!/bin/sh
# `npm test`: the whole suite. The checks (typecheck, ESLint, the Prettier check: `npm run checks`) run
# beside vitest at the lowest CPU priority: most test files wait on sockets and child processes, and the
# checks take the CPU they leave idle instead of two minutes of their own before the first test. Their
# output is printed only when they fail, after the tests'; either failing fails the run.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
nice -n 19 npm run --silent checks >"$out" 2>&1 &
checks=$!
# An interrupt ends the checks' processes and nothing else (not the process group: it may hold the caller).
end_tree() {
  for child in $(pgrep -P "$1"); do end_tree "$child"; done
  kill "$1" 2>/dev/null
}
trap 'end_tree "$checks"; exit 130' INT TERM
vitest run "$@"
tests=$?
wait "$checks"
checked=$?
if [ "$checked" -ne 0 ]; then
  cat "$out"
  echo "checks: failed (typecheck, ESLint or Prettier: see above)"
fi
if [ "$tests" -ne 0 ] || [ "$checked" -ne 0 ]; then exit 1; fi
