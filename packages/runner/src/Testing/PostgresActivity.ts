/**
 * The `pg` driver's statements in `Sql/SqlActivity`, for the testing kit's layers on PostgreSQL: its
 * `settle` waits for the statements in flight, as the PGlite client reports them itself. A wrapper
 * of the driver's callback queries (the form `@effect/sql-pg` uses) for the scope's lifetime; it lives
 * here, with the kit, so that no production module patches the driver.
 */
import * as Effect from "effect/Effect"
import pg from "pg"
import * as SqlActivity from "../Sql/SqlActivity.js"

export const trackNodePostgres = Effect.acquireRelease(
  Effect.sync(() => {
    const original = pg.Client.prototype.query
    pg.Client.prototype.query = function(this: pg.Client, ...args: Array<any>) {
      const callback = args[args.length - 1]
      if (typeof callback !== "function") return (original as any).apply(this, args)
      SqlActivity.begin()
      let done = false
      args[args.length - 1] = (...results: Array<unknown>) => {
        if (!done) {
          done = true
          SqlActivity.end()
        }
        return callback(...results)
      }
      return (original as any).apply(this, args)
    } as any
    return original
  }),
  (original) => Effect.sync(() => void (pg.Client.prototype.query = original))
)
