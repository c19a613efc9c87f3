/**
 * How many SQL statements of this process are executing right now. The testing kit's `advance`
 * reads it to know when the runtime has finished the work a timer started, before it moves the
 * TestClock again. The PGlite client counts its statements; `trackNodePostgres` counts those of
 * the `pg` driver while a test layer (or the benchmark's probe) has it installed.
 */
import * as Effect from "effect/Effect"
import pg from "pg"

let inFlight = 0
let total = 0

export const current = (): number => inFlight

/** Statements started since the process began (the benchmark's statements-per-attempt figure). */
export const started = (): number => total

export const begin = (): void => {
  inFlight++
  total++
}

export const end = (): void => {
  inFlight--
}

/** Counts the `pg` driver's callback queries (the form `@effect/sql-pg` uses) for the scope's lifetime. */
export const trackNodePostgres = Effect.acquireRelease(
  Effect.sync(() => {
    const original = pg.Client.prototype.query
    pg.Client.prototype.query = function(this: pg.Client, ...args: Array<any>) {
      const callback = args[args.length - 1]
      if (typeof callback !== "function") return (original as any).apply(this, args)
      begin()
      let done = false
      args[args.length - 1] = (...results: Array<unknown>) => {
        if (!done) {
          done = true
          end()
        }
        return callback(...results)
      }
      return (original as any).apply(this, args)
    } as any
    return original
  }),
  (original) => Effect.sync(() => void (pg.Client.prototype.query = original))
)
