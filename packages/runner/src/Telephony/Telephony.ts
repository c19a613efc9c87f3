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
import type { CallerStep } from "../Voice/SimulatedCaller.js"

export interface DialRequest {
  readonly sessionId: SessionId
  readonly provider: PhoneProvider
  readonly from: string
  readonly to: string
  readonly agent: AgentPersona
  /**
   * Where the carrier streams the call's audio once it is answered, and the stream's one-use token:
   * the media server of the runner that owns the call. Without it (no media server in the process),
   * a network carrier plays the greeting and keeps the line open, as before the conversation engine.
   */
  readonly media?: { readonly streamUrl: string; readonly token: string } | undefined
  /** The simulated carrier's callee follows this script (from the call's metadata; see `scriptFromMetadata`). */
  readonly callerScript?: ReadonlyArray<CallerStep> | undefined
}

export class DialRefused extends Data.TaggedError("DialRefused")<{ readonly reason: string }> {}

/** Where a call stands by the carrier's own record, with the carrier's times (epoch ms) when it gives them. */
export interface CarrierCallStatus {
  readonly phase: ProviderEventKind | "dialing"
  readonly answeredAt?: number | undefined
  readonly endedAt?: number | undefined
}

export interface Carrier {
  readonly name: string
  readonly dial: (request: DialRequest) => Effect.Effect<{ readonly providerCallId: string }, DialRefused>
  readonly hangup: (providerCallId: string) => Effect.Effect<void>
  /**
   * The carrier's view of a call, used when a call's entity restarts (after a crash, on another
   * runner): a call that ended meanwhile is billed by the carrier's times, not by when it was noticed.
   * `None` when the carrier knows no such call.
   */
  readonly status: (providerCallId: string) => Effect.Effect<Option.Option<CarrierCallStatus>>
}

export class Telephony extends Context.Tag("Runner/Telephony")<Telephony, {
  readonly carrierFor: (provider: PhoneProvider) => Carrier
}>() {}

/** Where carriers report what happened on a call. */
export class CallEventSink extends Context.Tag("Runner/CallEventSink")<CallEventSink, {
  readonly report: (sessionId: SessionId, event: ProviderEvent) => Effect.Effect<void>
}>() {}
