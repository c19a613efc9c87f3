import * as NodeStream from "@effect/platform-node/NodeStream"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { CurrentTenant } from "@voiceagent/domain/Auth"
import { LiveCallEntity } from "@voiceagent/domain/Calls"
import { CommsApi, InvalidCarrierPayload } from "@voiceagent/domain/CommsApi"
import { makePage } from "@voiceagent/domain/Pagination"
import { Calls } from "@voiceagent/runner/Calls/Calls"
import {
  amdCallbackPath,
  mapAnsweredBy,
  statusCallbackPath,
  streamEndedPath,
  streamEndedTwiml
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as fs from "node:fs"
import { PublicUrl } from "../PublicUrl.js"
import { makeInboundCallHandlers, makeTwilioStatusDelivery, makeTwilioVerifier } from "./InboundCallsHttp.js"
import { makeTelnyxWebhookHandler } from "./TelnyxWebhookHttp.js"

/** Twilio's auth token, when a voice number's provider is served by Twilio: it verifies status callbacks. */
export class TwilioWebhookSecret
  extends Context.Tag("Http/TwilioWebhookSecret")<TwilioWebhookSecret, Option.Option<Redacted.Redacted>>()
{
  static readonly layer = (token: Option.Option<Redacted.Redacted>) => Layer.succeed(TwilioWebhookSecret, token)
}

export const CallsHttpLive = HttpApiBuilder.group(CommsApi, "calls", (handlers) =>
  Effect.gen(function*() {
    const calls = yield* Calls
    const tenant = Effect.map(CurrentTenant, (t) => t.tenantId)
    return handlers
      .handle("placeCall", ({ headers, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          calls.place(tenantId, payload, headers["idempotency-key"])))
      .handle("listCallLogs", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* calls.list(yield* tenant, urlParams, urlParams)
          return makePage(items, total, urlParams)
        }))
      .handle("getCall", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) => calls.get(tenantId, path.sessionId)))
      .handle("getCallRecording", ({ path }) =>
        Effect.gen(function*() {
          const file = yield* calls.recording(yield* tenant, path.sessionId)
          return HttpServerResponse.stream(
            NodeStream.fromReadable(() => fs.createReadStream(file.path), (error) => error),
            { contentType: "audio/wav", contentLength: file.bytes }
          )
        }))
      .handle("deleteCallRecording", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) =>
          calls.deleteRecording(tenantId, path.sessionId)))
      .handle("hangupCall", ({ path }) =>
        Effect.flatMap(tenant, (tenantId) => calls.hangup(tenantId, path.sessionId)))
      .handle("transferCall", ({ path, payload }) =>
        Effect.flatMap(tenant, (tenantId) =>
          calls.transfer(tenantId, path.sessionId, payload.toNumber)))
      .handle("listWebhookDeliveries", ({ urlParams }) =>
        Effect.gen(function*() {
          const { items, total } = yield* calls.webhookDeliveries(yield* tenant, urlParams)
          return makePage(items, total, urlParams)
        }))
  }))

export const TelephonyCallbacksHttpLive = HttpApiBuilder.group(
  CommsApi,
  "telephonyCallbacks",
  (handlers) =>
    Effect.gen(function*() {
      const publicUrl = yield* PublicUrl
      const calls = yield* LiveCallEntity.client
      const telnyx = yield* makeTelnyxWebhookHandler
      const verified = yield* makeTwilioVerifier
      const deliverStatus = yield* makeTwilioStatusDelivery
      const inbound = yield* makeInboundCallHandlers
      return handlers
        .handle("twilioStreamEnded", ({ headers, path, payload }) =>
          Effect.gen(function*() {
            yield* verified(streamEndedPath(path.sessionId), headers["x-twilio-signature"], payload)
            const route = yield* calls(path.sessionId).StreamEnded().pipe(
              Effect.catchAllCause((cause) =>
                Effect.as(Effect.logWarning("a call's stream could not be routed", cause), null)
              )
            )
            return streamEndedTwiml(route, `${yield* publicUrl.get}${streamEndedPath(path.sessionId)}`)
          }))
        .handle("twilioStatus", ({ headers, path, payload }) =>
          Effect.zipRight(
            verified(statusCallbackPath(path.sessionId), headers["x-twilio-signature"], payload),
            deliverStatus(path.sessionId, payload)
          ))
        .handle("twilioAmd", ({ headers, path, payload }) =>
          Effect.gen(function*() {
            yield* verified(amdCallbackPath(path.sessionId), headers["x-twilio-signature"], payload)
            const callSid = payload["CallSid"] ?? ""
            const raw = payload["AnsweredBy"] ?? ""
            const verdict = mapAnsweredBy(raw)
            if (callSid === "" || verdict === undefined) return yield* new InvalidCarrierPayload()
            yield* calls(path.sessionId).MachineDetected({
              verdict: {
                verdictId: `twilio:${callSid}:amd`,
                ...verdict,
                source: "twilio",
                raw,
                at: yield* Clock.currentTimeMillis
              }
            }).pipe(Effect.orDie)
          }))
        .handle("telnyxWebhook", ({ headers, path }) => telnyx(path.sessionId, headers))
        .handle(
          "twilioIncomingCall",
          ({ headers, payload }) => inbound.twilioIncomingCall(headers["x-twilio-signature"], payload)
        )
        .handle(
          "twilioIncomingCallStatus",
          ({ headers, payload }) => inbound.twilioIncomingCallStatus(headers["x-twilio-signature"], payload)
        )
        .handle("telnyxIncomingCall", ({ headers }) => inbound.telnyxIncomingCall(headers))
    })
)
