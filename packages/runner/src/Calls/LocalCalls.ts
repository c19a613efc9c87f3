/**
 * The live calls whose `LiveCall` entity runs in this process. A carrier that runs in-process (the
 * simulated carrier) reports events straight to the entity through here, without a persisted
 * cluster message: the entity applies them under its own lock exactly as it applies a
 * `ProviderEvent` message, and the state machine ignores duplicates. When the entity is not here
 * (it moved to another runner, or stopped), the report goes through the cluster instead.
 *
 * Why: a persisted message costs several statements (store, mark processed, store the reply) and
 * a storage poll; an in-process carrier's events gain nothing from them, since they die with the
 * process anyway and a restarted entity asks the carrier where the call stands.
 */
import type { ProviderEvent, SessionId } from "@voiceagent/domain/Calls"
import * as Effect from "effect/Effect"

type Handler = (event: ProviderEvent) => Effect.Effect<void>

export class LocalCalls extends Effect.Service<LocalCalls>()("Calls/LocalCalls", {
  sync: () => {
    const handlers = new Map<string, Handler>()
    return {
      /** Registers the entity's handler for the lifetime of the current scope. */
      register: (sessionId: SessionId, handler: Handler) =>
        Effect.acquireRelease(
          Effect.sync(() => handlers.set(sessionId, handler)),
          () =>
            Effect.sync(() => {
              if (handlers.get(sessionId) === handler) handlers.delete(sessionId)
            })
        ),
      /** Hands the event to the entity when it runs here; answers whether it did. */
      deliver: (sessionId: SessionId, event: ProviderEvent): Effect.Effect<boolean> =>
        Effect.suspend(() => {
          const handler = handlers.get(sessionId)
          return handler === undefined ? Effect.succeed(false) : Effect.as(handler(event), true)
        }),
      /** Whether the call's entity runs here now (a ringing call's entity lets go once idle). */
      has: (sessionId: SessionId) => handlers.has(sessionId)
    } as const
  }
}) {}
