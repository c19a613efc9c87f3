/**
 * Telnyx's Call Control webhooks for a session (`POST /telephony/telnyx/webhook/{sessionId}`): the
 * signature over the raw bytes is checked before anything is read (`TELNYX_PUBLIC_KEY`, Ed25519,
 * within five minutes by Effect's Clock), then the body is read with the rules every JSON body
 * meets, and `call.answered` / `call.hangup` go to the call's entity as provider events, at Telnyx's
 * times, once per Telnyx event id; `call.machine.*` (answering-machine detection) go to it as its
 * verdicts (docs/voicemail.md). Everything else Telnyx sends is acknowledged and ignored.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import { InvalidCarrierPayload, InvalidCarrierSignature, TelnyxWebhookReceipt } from "@voiceagent/domain/CommsApi"
import { JSON_BODY_MAX_DEPTH, readJsonText } from "@voiceagent/domain/Json"
import {
  callEventOf,
  machineVerdictOf,
  parseWebhookEvent,
  type TelnyxWebhookEvent,
  verifyWebhook
} from "@voiceagent/runner/Telephony/TelnyxWebhooks"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as crypto from "node:crypto"

/** Telnyx's webhook public key (`TELNYX_PUBLIC_KEY`), when a voice number's provider is served by Telnyx. */
export class TelnyxWebhookKey
  extends Context.Tag("Http/TelnyxWebhookKey")<TelnyxWebhookKey, Option.Option<crypto.KeyObject>>()
{
  static readonly layer = (key: Option.Option<crypto.KeyObject>) => Layer.succeed(TelnyxWebhookKey, key)
}

type TelnyxHeaders = {
  readonly "telnyx-signature-ed25519"?: string | undefined
  readonly "telnyx-timestamp"?: string | undefined
}

/**
 * Reads a Telnyx webhook: its signature over the raw bytes checked first, then its body read with
 * the rules every JSON body meets. `sessionId` only names the call in the log.
 */
export const makeTelnyxWebhookReader = Effect.gen(function*() {
  const key = yield* TelnyxWebhookKey
  return (headers: TelnyxHeaders, sessionId?: SessionId) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const raw = new Uint8Array(yield* request.arrayBuffer.pipe(Effect.orElseSucceed(() => new ArrayBuffer(0))))
      if (Option.isNone(key)) {
        return yield* new InvalidCarrierSignature({
          message: "TELNYX_PUBLIC_KEY is not configured, so no Telnyx webhook can be verified"
        })
      }
      const now = yield* Clock.currentTimeMillis
      const problem = verifyWebhook(
        key.value,
        { signature: headers["telnyx-signature-ed25519"], timestamp: headers["telnyx-timestamp"] },
        raw,
        now
      )
      if (problem !== undefined) {
        yield* Effect.logInfo("a Telnyx webhook was refused").pipe(
          Effect.annotateLogs({ sessionId: sessionId ?? null, problem })
        )
        return yield* new InvalidCarrierSignature()
      }
      // signed, so now read with the rules every JSON body meets
      const read = readJsonText(Buffer.from(raw).toString("utf8"))
      switch (read._tag) {
        case "NotJson":
          return yield* new InvalidCarrierPayload({ message: "The webhook body is not JSON" })
        case "TooDeep":
          return yield* new InvalidCarrierPayload({
            message: `The webhook body nests deeper than ${JSON_BODY_MAX_DEPTH} levels`
          })
        case "Unstorable":
          return yield* new InvalidCarrierPayload({
            message: `The webhook body holds what cannot be stored: ${read.problems[0]!.message}`
          })
      }
      const parsed = parseWebhookEvent(read.value)
      if (parsed._tag === "Left") return yield* new InvalidCarrierPayload({ message: parsed.left })
      return parsed.right
    })
})

/** Delivers a verified event to the call's entity: `call.answered` and `call.hangup` move it, once per event id. */
export const makeTelnyxEventDelivery = Effect.gen(function*() {
  const calls = yield* LiveCallEntity.client
  return (sessionId: SessionId, event: TelnyxWebhookEvent) =>
    Effect.gen(function*() {
      const verdict = machineVerdictOf(event)
      if (typeof verdict === "string") return yield* new InvalidCarrierPayload({ message: verdict })
      if (verdict !== null) {
        yield* calls(sessionId).MachineDetected({
          verdict: {
            verdictId: `telnyx:${event.id}`,
            answeredBy: verdict.answeredBy,
            messageEnded: verdict.messageEnded,
            source: "telnyx",
            raw: verdict.result,
            at: event.occurredAt ?? (yield* Clock.currentTimeMillis)
          }
        }).pipe(Effect.orDie)
        return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: true })
      }
      const call = callEventOf(event)
      if (typeof call === "string") return yield* new InvalidCarrierPayload({ message: call })
      if (call === null) return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: false })
      const now = yield* Clock.currentTimeMillis
      yield* calls(sessionId).ProviderEvent({
        event: {
          eventId: `telnyx:${event.id}`,
          kind: call.kind,
          at: call.at ?? now,
          providerCallId: call.callControlId
        }
      }).pipe(Effect.orDie)
      return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: true })
    })
})

/** The handler of the route, with the key and the calls' client taken once. */
export const makeTelnyxWebhookHandler = Effect.gen(function*() {
  const read = yield* makeTelnyxWebhookReader
  const deliver = yield* makeTelnyxEventDelivery
  return (sessionId: SessionId, headers: TelnyxHeaders) =>
    Effect.flatMap(read(headers, sessionId), (event) => deliver(sessionId, event))
})
