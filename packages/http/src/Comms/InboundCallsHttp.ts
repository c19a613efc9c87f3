/**
 * Incoming calls' webhooks (docs/calls.md, "Inbound calls"): a Twilio number's voice webhook and
 * status callback, and a Telnyx Call Control application's webhook. Each is verified by the
 * carrier's signature before anything is read or written, then handed to the runner's `InboundCalls`:
 * the number called is routed to its agent, the carrier's call gets its one session, and the call's
 * `LiveCall` answers it (`Answer`): streamed to the agent, or turned away and recorded.
 */
import { LiveCallEntity, type SessionId } from "@voiceagent/domain/Calls"
import { InvalidCarrierPayload, InvalidCarrierSignature, TelnyxWebhookReceipt } from "@voiceagent/domain/CommsApi"
import { InboundCalls } from "@voiceagent/runner/Calls/InboundCalls"
import {
  incomingCallPath,
  incomingStatusPath,
  mapCallStatus,
  refusedTwiml,
  REJECT_TWIML,
  streamEndedPath,
  streamTwiml,
  verifySignature
} from "@voiceagent/runner/Telephony/TwilioCarrier"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { PublicUrl } from "../PublicUrl.js"
import { TwilioWebhookSecret } from "./CallsHttp.js"
import { makeTelnyxEventDelivery, makeTelnyxWebhookReader } from "./TelnyxWebhookHttp.js"

type Params = Readonly<Record<string, string>>

/** A phone number or caller id as carriers send them (`+14155550100`, `anonymous`, `client:alice`, `sip:…`). */
const CALLER = /^[\x21-\x7e]{1,128}$/

/** Checks `X-Twilio-Signature` of a request to `path` under the public URL. */
export const makeTwilioVerifier = Effect.gen(function*() {
  const secret = yield* TwilioWebhookSecret
  const publicUrl = yield* PublicUrl
  return (path: string, signature: string | undefined, payload: Params) =>
    Effect.gen(function*() {
      const url = `${yield* publicUrl.get}${path}`
      if (
        Option.isNone(secret) || signature === undefined ||
        !verifySignature(Redacted.value(secret.value), url, payload, signature)
      ) {
        return yield* new InvalidCarrierSignature()
      }
    })
})

/** Delivers a Twilio status callback to the call: its `CallStatus` as a provider event at Twilio's time, once. */
export const makeTwilioStatusDelivery = Effect.gen(function*() {
  const calls = yield* LiveCallEntity.client
  return (sessionId: SessionId, payload: Params) =>
    Effect.gen(function*() {
      const kind = mapCallStatus(payload["CallStatus"] ?? "")
      if (kind === null) return
      const callSid = payload["CallSid"] ?? ""
      // Twilio's own time of the event (RFC 2822, to the second): a callback that arrives late, or
      // is redelivered after an outage, still bills the call by when things happened
      const stamped = Date.parse(payload["Timestamp"] ?? "")
      yield* calls(sessionId).ProviderEvent({
        event: {
          eventId: `twilio:${callSid}:${payload["CallStatus"]}`,
          kind,
          at: Number.isNaN(stamped) ? yield* Clock.currentTimeMillis : stamped,
          providerCallId: callSid === "" ? null : callSid
        }
      }).pipe(Effect.orDie)
    })
})

export const makeInboundCallHandlers = Effect.gen(function*() {
  const inbound = yield* InboundCalls
  const publicUrl = yield* PublicUrl
  const verifyTwilio = yield* makeTwilioVerifier
  const deliverTwilioStatus = yield* makeTwilioStatusDelivery
  const readTelnyx = yield* makeTelnyxWebhookReader
  const deliverTelnyx = yield* makeTelnyxEventDelivery

  const twilioIncomingCall = (signature: string | undefined, payload: Params) =>
    Effect.gen(function*() {
      yield* verifyTwilio(incomingCallPath, signature, payload)
      const callSid = payload["CallSid"] ?? ""
      const from = payload["From"] ?? ""
      const to = payload["To"] ?? ""
      if (!/^CA[0-9a-f]{32}$/i.test(callSid)) {
        return yield* new InvalidCarrierPayload({ message: "CallSid must be a Twilio call sid" })
      }
      if (!CALLER.test(from)) {
        return yield* new InvalidCarrierPayload({ message: "From must be 1 to 128 printable characters" })
      }
      if (!CALLER.test(to)) {
        return yield* new InvalidCarrierPayload({ message: "To must be 1 to 128 printable characters" })
      }
      if ((payload["Direction"] ?? "inbound") !== "inbound") {
        return yield* new InvalidCarrierPayload({
          message: "Direction must be inbound: this is the webhook of incoming calls"
        })
      }
      const taken = yield* inbound.take("twilio", to, callSid, from)
      if (Option.isNone(taken)) {
        yield* Effect.logInfo("an incoming Twilio call to a number no agent answers was rejected").pipe(
          Effect.annotateLogs({ to })
        )
        return REJECT_TWIML
      }
      const { answer, sessionId } = taken.value
      if (answer._tag === "NotServed") return REJECT_TWIML
      if (answer._tag === "Refused") return refusedTwiml()
      if (answer.route === null) return "<Response><Hangup/></Response>"
      return streamTwiml(
        answer.route.streamUrl,
        answer.route.token,
        `${yield* publicUrl.get}${streamEndedPath(sessionId)}`
      )
    })

  const twilioIncomingCallStatus = (signature: string | undefined, payload: Params) =>
    Effect.gen(function*() {
      yield* verifyTwilio(incomingStatusPath, signature, payload)
      const session = yield* inbound.sessionOf("twilio", payload["CallSid"] ?? "")
      if (Option.isSome(session)) yield* deliverTwilioStatus(session.value, payload)
    })

  const telnyxIncomingCall = (headers: Parameters<typeof readTelnyx>[0]) =>
    Effect.gen(function*() {
      const event = yield* readTelnyx(headers)
      const { payload } = event
      const callControlId = payload["call_control_id"]
      if (typeof callControlId !== "string" || callControlId === "" || callControlId.length > 256) {
        return yield* new InvalidCarrierPayload({ message: `${event.eventType} without a call_control_id` })
      }
      if (event.eventType === "call.initiated" && payload["direction"] === "incoming") {
        const from = payload["from"]
        const to = payload["to"]
        if (typeof from !== "string" || !CALLER.test(from)) {
          return yield* new InvalidCarrierPayload({ message: "payload.from must be 1 to 128 printable characters" })
        }
        if (typeof to !== "string" || !CALLER.test(to)) {
          return yield* new InvalidCarrierPayload({ message: "payload.to must be 1 to 128 printable characters" })
        }
        const taken = yield* inbound.take("telnyx", to, callControlId, from)
        if (Option.isNone(taken)) {
          yield* Effect.logInfo("an incoming Telnyx call to a number no agent answers was left alone").pipe(
            Effect.annotateLogs({ to })
          )
          return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: false })
        }
        const { answer } = taken.value
        return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: answer._tag !== "NotServed" })
      }
      // a call taken here hears of its events at its own URL; any sent here still reach it
      const session = yield* inbound.sessionOf("telnyx", callControlId)
      if (Option.isNone(session)) return new TelnyxWebhookReceipt({ eventType: event.eventType, applied: false })
      return yield* deliverTelnyx(session.value, event)
    })

  return { twilioIncomingCall, twilioIncomingCallStatus, telnyxIncomingCall } as const
})
