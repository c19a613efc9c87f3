/**
 * The telephony port. A carrier places and ends calls; what happens on the line comes back as
 * provider events (ringing, answered, busy, no answer, failed, completed) to the call's entity,
 * through the `CallEventSink`. Which carrier serves a voice number is chosen by its provider.
 */
import type { ProviderEvent, ProviderEventKind, SessionId } from "@voiceagent/domain/Calls"
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { AgentPersona } from "../Brain/AgentBrain.js"

export interface DialRequest {
  readonly sessionId: SessionId
  readonly provider: PhoneProvider
  readonly from: string
  readonly to: string
  readonly agent: AgentPersona
  /** The simulated carrier's caller says these lines in turn (from the call's `metadata.simulatedCallerLines`). */
  readonly callerLines?: ReadonlyArray<string> | undefined
}

export class DialRefused extends Data.TaggedError("DialRefused")<{ readonly reason: string }> {}

export interface Carrier {
  readonly name: string
  readonly dial: (request: DialRequest) => Effect.Effect<{ readonly providerCallId: string }, DialRefused>
  readonly hangup: (providerCallId: string) => Effect.Effect<void>
  /** The carrier's view of a call, used when a call's entity restarts; `None` when it knows no such call. */
  readonly status: (providerCallId: string) => Effect.Effect<Option.Option<ProviderEventKind | "dialing">>
}

export class Telephony extends Context.Tag("Runner/Telephony")<Telephony, {
  readonly carrierFor: (provider: PhoneProvider) => Carrier
}>() {}

/** Where carriers report what happened on a call. */
export class CallEventSink extends Context.Tag("Runner/CallEventSink")<CallEventSink, {
  readonly report: (sessionId: SessionId, event: ProviderEvent) => Effect.Effect<void>
}>() {}
