/**
 * Work of this process that Effect's clock does not see: a speech synthesis on a worker thread, a
 * request to a language model. The testing kit's `advance` (like it does for SQL statements, see
 * `SqlActivity`) waits for it to finish before it moves the TestClock again, so a conversation under
 * the TestClock hears the agent's words at the virtual time they would come, not after the caller
 * already hung up.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

let inFlight = 0

export const current = (): number => inFlight

const begin = Effect.sync(() => {
  inFlight++
})
const end = Effect.sync(() => {
  inFlight--
})

/** `effect`, counted while it runs. */
export const tracked = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.acquireUseRelease(begin, () => effect, () => end)

/** `stream`, counted from its start until it ends, fails or is interrupted. */
export const trackedStream = <A, E, R>(stream: Stream.Stream<A, E, R>): Stream.Stream<A, E, R> =>
  Stream.unwrapScoped(Effect.as(Effect.acquireRelease(begin, () => end), stream))
