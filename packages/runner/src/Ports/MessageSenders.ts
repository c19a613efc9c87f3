/**
 * The ports post-call messages leave through: one chat-app sender and one SMS sender per provider
 * name. Adapters turn a provider's answer into a `SendResult` or a `SendFailure` that says whether a
 * retry may help (timeouts, connection errors, 429 and 5xx) or not (every other 4xx).
 *
 * `idempotent` tells the dispatcher whether the provider de-duplicates a repeated request carrying
 * the same key (our message id): only then is a crash between sending and recording the answer
 * guaranteed not to reach the customer twice.
 */
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import type * as Effect from "effect/Effect"

export interface OutboundSms {
  /** Our message id (a UUID): the idempotency key where the provider takes one, and the client reference. */
  readonly messageId: string
  /** E.164. */
  readonly to: string
  /** An E.164 number or an alphanumeric sender id. */
  readonly from: string
  readonly body: string
  /** GSM-7 fits the basic GSM alphabet (and its extension table); anything else goes as UCS-2 (unicode). */
  readonly encoding: "GSM7" | "UCS2"
  /** India DLT: the registered sender id (header), and the content template id. */
  readonly dltSenderId: string | null
  readonly dltTemplateId: string | null
  /** When the first attempt of this message was made (providers with repeatable requests need it). */
  readonly firstAttemptAt: Date
}

export interface OutboundChatApp {
  readonly messageId: string
  /** E.164. */
  readonly to: string
  /** The sender's phone number id at the messaging platform. */
  readonly phoneNumberId: string
  readonly templateName: string
  readonly languageCode: string
  /** Positional body parameters of the template ({{1}}, {{2}}, …), already rendered. */
  readonly bodyParameters: ReadonlyArray<string>
  readonly firstAttemptAt: Date
}

export interface SendResult {
  /** The provider's id for the message (e.g. a Twilio `SM…` sid, a WhatsApp `wamid.…`). */
  readonly providerMessageId: string
}

export class SendFailure extends Data.TaggedError("SendFailure")<{
  /** A timeout, a connection error, 429 or 5xx: the dispatcher tries again later. */
  readonly retryable: boolean
  /** The HTTP status, when there was an answer. */
  readonly status: number | null
  /** The provider's error code, when it gave one. */
  readonly code: string | null
  readonly message: string
}> {}

export interface Sender<M> {
  /** The adapter's name as shown in message logs, e.g. `twilio`, `whatsapp-cloud`, `simulated`. */
  readonly name: string
  readonly idempotent: boolean
  readonly send: (message: M) => Effect.Effect<SendResult, SendFailure>
}

export type SmsSender = Sender<OutboundSms>
export type ChatAppSender = Sender<OutboundChatApp>

// ---------------------------------------------------------------------------
// What the messaging platform reports back (its webhook), as the outbox records it
// ---------------------------------------------------------------------------

export type DeliveryStatus = "sent" | "delivered" | "read" | "failed"

export interface InboundStatus {
  /** The provider's id of a message we sent. */
  readonly providerMessageId: string
  readonly status: DeliveryStatus
  readonly at: Date
  readonly error: { readonly code: string; readonly title: string } | null
}

export interface InboundReply {
  readonly providerMessageId: string
  /** The sender as the platform gives it (WhatsApp: digits, no `+`). */
  readonly from: string
  readonly phoneNumberId: string
  readonly at: Date
  readonly type: string
  /** The text, the button's text or the interactive reply's title; `null` for media and the like. */
  readonly text: string | null
  readonly contactName: string | null
  /** The message object as the platform sent it. */
  readonly raw: unknown
}

export class MessageSenders extends Context.Tag("Messaging/MessageSenders")<MessageSenders, {
  readonly chatApp: ChatAppSender
  readonly sms: (provider: PhoneProvider) => SmsSender
}>() {}
