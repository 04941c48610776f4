#!/bin/sh
# `npm test`: the whole suite. The checks (typecheck, ESLint, the Prettier check: `npm run checks`) run
# beside vitest at the lowest CPU priority: most test files wait on sockets and child processes, and the
# checks take the CPU they leave idle instead of two minutes of their own before the first test. Their
# output is printed only when they fail, after the tests'; either failing fails the run.
out=$(mktemp)
trap 'rm -f "$out"' EXIT
trap 'kill 0; exit 130' INT TERM
nice -n 19 npm run --silent checks >"$out" 2>&1 &
checks=$!
vitest run "$@"
tests=$?
wait "$checks"
checked=$?
if [ "$checked" -ne 0 ]; then
  cat "$out"
  echo "checks: failed (typecheck, ESLint or Prettier: see above)"
fi
if [ "$tests" -ne 0 ] || [ "$checked" -ne 0 ]; then exit 1; fi
