/**
 * The `pg` driver's statements in `Sql/SqlActivity`, for the testing kit's layers on PostgreSQL: its
 * `settle` waits for the statements in flight, as the PGlite client reports them itself. A wrapper
 * of the driver's callback queries (the form `@effect/sql-pg` uses) for the scope's lifetime; it lives
 * here, with the kit, so that no production module patches the driver.
 */
import * as Effect from "effect/Effect"
import pg from "pg"
import * as SqlActivity from "../Sql/SqlActivity.js"

/** A driver method, in either of its forms. */
type Method = (this: unknown, ...args: Array<unknown>) => unknown

/**
 * `method` wrapped so that a call in the driver's callback form counts from the call to its
 * callback (`begin`, then `end` once); calls in the promise form pass through.
 */
const counting = (method: Method, begin: () => void, end: () => void): Method =>
  function(this: unknown, ...args: Array<unknown>) {
    const callback = args[args.length - 1]
    if (typeof callback !== "function") return method.apply(this, args)
    begin()
    let done = false
    args[args.length - 1] = (...results: Array<unknown>) => {
      if (!done) {
        done = true
        end()
      }
      return callback(...results)
    }
    return method.apply(this, args)
  }

export const trackNodePostgres = Effect.acquireRelease(
  Effect.sync(() => {
    // A statement waits for a pooled connection before the driver sees it, and a connection the pool
    // let go when it idled is opened again then (a TCP connect and PostgreSQL's start-up, several ms on
    // a loaded machine): counted too, or `settle` takes that wait for a quiet runtime and moves the
    // clock while a timer's work has not reached the database yet (seen as a campaign's dial landing
    // after the instant it was due at).
    const ownConnect = Object.hasOwn(pg.Pool.prototype, "connect")
    const originalConnect = pg.Pool.prototype.connect
    pg.Pool.prototype.connect = counting(
      originalConnect,
      SqlActivity.beginWait,
      SqlActivity.endWait
    ) as typeof originalConnect
    const original = pg.Client.prototype.query
    pg.Client.prototype.query = counting(original, SqlActivity.begin, SqlActivity.end) as typeof original
    return { original, originalConnect, ownConnect }
  }),
  ({ original, originalConnect, ownConnect }) =>
    Effect.sync(() => {
      pg.Client.prototype.query = original
      if (ownConnect) pg.Pool.prototype.connect = originalConnect
      else delete (pg.Pool.prototype as Partial<pg.Pool>).connect
    })
)
