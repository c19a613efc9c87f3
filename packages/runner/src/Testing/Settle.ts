/**
 * When the runtime is quiet, for the testing kit's clock moves: see {@link settle}.
 */
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as TestClock from "effect/TestClock"
import * as OffClockWork from "../Observability/OffClockWork.js"
import * as SqlActivity from "../Sql/SqlActivity.js"
import * as VirtualClock from "./VirtualClock.js"

const nextTurn = Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))

/**
 * What `settle` has spent, since the process began (read by `bench/perf/TestKitWalk.ts` for its
 * breakdown): its calls, its turns of the event loop, and the real time it waited for work off the
 * clock (speech synthesis on worker threads, see `OffClockWork`).
 */
export const stats = { settles: 0, turns: 0, offClockMillis: 0 }

/** Turns of the event loop the runtime must stay unchanged for before it counts as quiet. */
const QUIET_TURNS = 3

/**
 * Waits (in real time) until the runtime is quiet: no SQL statement executing, no work on other
 * threads the clock does not see (a speech synthesis, see `OffClockWork`), and the clock untouched
 * (no sleep begun, ended or interrupted) over a few turns of the event loop. Work a timer starts
 * ends by setting a new timer or none, so the next clock move is measured from the right instant.
 * Each turn costs O(1) on the kit's {@link VirtualClock.VirtualClock}; on Effect's own `TestClock`
 * (a test that does not install the kit's clock) it reads the clock's pending sleeps.
 */
export const settle: Effect.Effect<void> = Effect.gen(function*() {
  const virtual = yield* VirtualClock.current
  const signature = virtual !== undefined
    ? Effect.sync(() => `${virtual.unsafeCurrentTimeMillis()}|${virtual.version}`)
    : Effect.map(TestClock.sleeps(), (sleeps) => `${sleeps.length}|${Chunk.reduce(sleeps, Infinity, Math.min)}`)
  let last = ""
  let stable = 0
  stats.settles++
  for (let i = 0; i < 1_000_000 && stable < QUIET_TURNS; i++) {
    yield* nextTurn
    stats.turns++
    if (OffClockWork.current() > 0) {
      // work on other threads (speech synthesis): wait without spinning, so it has the cores
      stable = 0
      const waited = performance.now()
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 2)))
      stats.offClockMillis += performance.now() - waited
      continue
    }
    if (SqlActivity.current() > 0) {
      stable = 0
      continue
    }
    const seen = `${yield* Clock.currentTimeMillis}|${yield* signature}`
    stable = seen === last ? stable + 1 : 0
    last = seen
  }
})
