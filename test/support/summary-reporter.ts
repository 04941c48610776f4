import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints `tests: N passed, N failed, N skipped` alone on a line at the end of the run, for CI to read.
 * A file that failed before any of its tests ran (import or syntax error) and each unhandled error count
 * as one failure each, so a broken run can never read as "0 failed".
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<SerializedError>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const testModule of testModules) {
      let moduleFailures = 0;
      for (const test of testModule.children.allTests()) {
        const { state } = test.result();
        if (state === 'passed') passed++;
        else if (state === 'failed') moduleFailures++;
        else if (state === 'skipped') skipped++;
      }
      if (moduleFailures === 0 && testModule.state() === 'failed') moduleFailures = 1;
      failed += moduleFailures;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
