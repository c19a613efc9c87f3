/**
 * The call-ended event. It is published inside the transaction that marks the session ended, so
 * every consumer's outbox row commits with it, or none does. Consumers register as listeners:
 * call-result webhooks here; campaigns and post-call messaging add theirs.
 */
import type { CallOutcome } from "@voiceagent/domain/CallMachine"
import type { CallDirection, SessionId, TranscriptLine } from "@voiceagent/domain/Calls"
import type { AgentId, ContactId, TenantId } from "@voiceagent/domain/Ids"
import type { AnsweredBy, VoicemailResult } from "@voiceagent/domain/Voicemail"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export interface CallEndedEvent {
  readonly sessionId: SessionId
  readonly tenantId: TenantId
  readonly agentId: AgentId
  readonly campaignId: string | null
  readonly campaignAttemptId: string | null
  readonly customerId: ContactId | null
  readonly direction: CallDirection
  /** null on a web call, which has no phone numbers. */
  readonly fromNumber: string | null
  readonly toNumber: string | null
  readonly outcome: CallOutcome
  readonly endReason: string
  readonly startedAt: Date
  readonly answeredAt: Date | null
  readonly endedAt: Date
  readonly durationSeconds: number
  readonly billedSeconds: number
  readonly cost: number
  readonly currency: string
  readonly transcript: ReadonlyArray<TranscriptLine>
  readonly metadata: { readonly [key: string]: unknown }
  /** Voicemail detection (docs/voicemail.md): null when it did not run or gave no verdict. */
  readonly answeredBy?: AnsweredBy | null | undefined
  readonly voicemail?: VoicemailResult | null | undefined
}

export interface CallEndedListener {
  /**
   * Whether `onCallEnded` would write anything for this event (a cached lookup, before the end's
   * statement): when no listener wants an end, it is written in one statement, without a transaction.
   * Absent: the listener always takes part.
   */
  readonly wants?: ((event: CallEndedEvent) => Effect.Effect<boolean>) | undefined
  /** Runs in the transaction that ends the call: write an outbox row here; answer `true` when it queued work. */
  readonly onCallEnded?: ((event: CallEndedEvent) => Effect.Effect<boolean | void>) | undefined
  /**
   * Runs after that transaction committed (e.g. to wake a dispatcher or a campaign's dial loop);
   * `queued` says whether this listener's `onCallEnded` answered `true` in it.
   */
  readonly afterCommit?: ((event: CallEndedEvent, queued: boolean) => Effect.Effect<void>) | undefined
}

export class CallEnded extends Context.Tag("Calls/CallEnded")<CallEnded, {
  /** Whether any listener writes for this event in the end's transaction. */
  readonly wants: (event: CallEndedEvent) => Effect.Effect<boolean>
  readonly publish: (event: CallEndedEvent) => Effect.Effect<void>
  readonly committed: (event: CallEndedEvent) => Effect.Effect<void>
}>() {
  /**
   * Publishes to the listeners given, in order. What each answered is kept with the event (the same
   * object is passed to `publish` and `committed`) until `committed`, so a dispatcher is woken only
   * when its rows were written.
   */
  static readonly layer = <R>(listeners: ReadonlyArray<Effect.Effect<CallEndedListener, never, R>>) =>
    Layer.effect(
      CallEnded,
      Effect.map(Effect.all(listeners), (resolved) => {
        const queued = new WeakMap<CallEndedEvent, ReadonlyArray<boolean>>()
        const writers = resolved.filter((l) => l.onCallEnded !== undefined)
        return {
          wants: (event: CallEndedEvent) =>
            Effect.exists(writers, (l) => l.wants === undefined ? Effect.succeed(true) : l.wants(event)),
          publish: (event: CallEndedEvent) =>
            Effect.forEach(resolved, (l) => l.onCallEnded === undefined ? Effect.succeed(false) : l.onCallEnded(event))
              .pipe(
                Effect.map((answers) => void queued.set(event, answers.map((a) => a === true)))
              ),
          committed: (event: CallEndedEvent) =>
            Effect.suspend(() => {
              const answers = queued.get(event)
              queued.delete(event)
              return Effect.forEach(
                resolved,
                (l, i) => l.afterCommit === undefined ? Effect.void : l.afterCommit(event, answers?.[i] ?? false),
                { discard: true }
              )
            })
        }
      })
    )
}
