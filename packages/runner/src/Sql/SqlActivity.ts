/**
 * How many SQL statements of this process are executing right now, and have started so far: the
 * testing kit's `advance` reads the first to know when the runtime has finished the work a timer
 * started, before it moves the clock again; the second is how the kit's users (and the benchmarks)
 * count what a piece of work costs. The embedded PGlite client counts its statements here; the `pg`
 * driver's are counted only where the kit installs its wrapper (`Testing/PostgresActivity`) or a
 * benchmark's probe does: the production PostgreSQL path carries no patch.
 */

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

/** Work on the way to a statement (a pooled connection awaited): in flight, not a statement started. */
export const beginWait = (): void => {
  inFlight++
}

export const endWait = (): void => {
  inFlight--
}
