/**
 * Preloaded into a benchmarked process (`--expose-gc --import ./bench/lib/MemoryProbe.ts`): on
 * SIGUSR2 it collects garbage and prints one line
 * `memory-probe <n> rss=<bytes> heapUsed=<bytes> external=<bytes> arrayBuffers=<bytes> statements=<n> cpuMicros=<µs>`
 * on stdout, so the benchmark can read the process's live memory and the SQL statements it has
 * started (`SqlActivity.started()`) from outside at chosen moments.
 *
 * PGlite's client counts its own statements in `SqlActivity`; the `pg` driver's are counted by the
 * patch installed here, so the figure covers PostgreSQL too.
 */
import * as SqlActivity from "@voiceagent/runner/Sql/SqlActivity"
import pg from "pg"

/**
 * Counts every statement sent through `pg.Client.prototype.query` in `SqlActivity`, like the
 * testing kit's `Testing/PostgresActivity` but installed for the life of the process (no Effect scope).
 * Callback and promise forms are tracked until they finish; a submittable (a cursor) is counted
 * as started only.
 */
export const installNodePostgresCounter = (): void => {
  const original = pg.Client.prototype.query as (...args: Array<any>) => any
  pg.Client.prototype.query = function(this: pg.Client, ...args: Array<any>) {
    const callback = args[args.length - 1]
    SqlActivity.begin()
    if (typeof callback === "function") {
      let done = false
      args[args.length - 1] = (...results: Array<unknown>) => {
        if (!done) {
          done = true
          SqlActivity.end()
        }
        return callback(...results)
      }
      return original.apply(this, args)
    }
    let result: any
    try {
      result = original.apply(this, args)
    } catch (error) {
      SqlActivity.end()
      throw error
    }
    if (result !== undefined && typeof result.then === "function") {
      result.then(SqlActivity.end, SqlActivity.end)
    } else {
      SqlActivity.end()
    }
    return result
  } as typeof pg.Client.prototype.query
}

installNodePostgresCounter()

let probes = 0
process.on("SIGUSR2", () => {
  const gc = (globalThis as { gc?: () => void }).gc
  gc?.()
  gc?.()
  const { heapUsed, rss, external, arrayBuffers } = process.memoryUsage()
  const cpu = process.cpuUsage()
  probes++
  process.stdout.write(
    `memory-probe ${probes} rss=${rss} heapUsed=${heapUsed} external=${external} arrayBuffers=${arrayBuffers} ` +
      `statements=${SqlActivity.started()} cpuMicros=${cpu.user + cpu.system}\n`
  )
})
