import * as os from "node:os"
import { defineConfig } from "vitest/config"

// The projects are in vitest.workspace.ts; this holds what applies to the whole run.
export default defineConfig({
  test: {
    // The suite waits on sockets, child processes and databases about as much as it computes: two
    // files at once even on a 2-core machine, where Vitest's default is one. CI's PGlite pass went
    // from ~700 s to 419 s of wall time on this 2-core machine, every test passing.
    maxWorkers: Math.max(2, os.availableParallelism() - 1)
  }
})
