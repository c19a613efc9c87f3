/**
 * Senders for the embedded default, where no provider is configured: every send succeeds at once
 * with a provider id `sim-<uuid v4>`. A send repeating a message id answers the id of the first, so
 * the senders are idempotent as the dispatcher understands it.
 *
 * `simulatedChatAppSender` and the senders made by `simulatedSmsSender(provider)` share one
 * process-wide memory of the ids they answered, so a sender made anew (a runtime rebuilt, a sender per
 * dispatch) still answers a repeat with the first id; `makeSimulatedSenders` makes a set with a memory
 * of its own and an `onSend` hook, for tests.
 */
import type { PhoneProvider } from "@voiceagent/domain/Phone"
import * as Effect from "effect/Effect"
import * as crypto from "node:crypto"
import type { ChatAppSender, OutboundChatApp, OutboundSms, SendResult, SmsSender } from "../Ports/MessageSenders.js"

export type SimulatedSend =
  | {
    readonly channel: "chat_app"
    readonly message: OutboundChatApp
    readonly providerMessageId: string
    /** Whether this send repeated an earlier one (and answered its id). */
    readonly repeat: boolean
  }
  | {
    readonly channel: "sms"
    readonly provider: PhoneProvider
    readonly message: OutboundSms
    readonly providerMessageId: string
    readonly repeat: boolean
  }

export interface SimulatedSendersOptions {
  /** Called on every send, after the id is settled. */
  readonly onSend?: (send: SimulatedSend) => void
  /** How many message ids are remembered (oldest forgotten first); 10,000 unless set. */
  readonly capacity?: number
}

export interface SimulatedSenders {
  readonly chatApp: ChatAppSender
  readonly sms: (provider: PhoneProvider) => SmsSender
}

const makeMemory = (capacity: number) => {
  const ids = new Map<string, string>()
  return (key: string): { readonly providerMessageId: string; readonly repeat: boolean } => {
    const known = ids.get(key)
    if (known !== undefined) return { providerMessageId: known, repeat: true }
    const providerMessageId = `sim-${crypto.randomUUID()}`
    ids.set(key, providerMessageId)
    if (ids.size > capacity) ids.delete(ids.keys().next().value!)
    return { providerMessageId, repeat: false }
  }
}

type Memory = ReturnType<typeof makeMemory>

const DEFAULT_CAPACITY = 10_000

const chatAppSender = (settle: Memory, onSend: SimulatedSendersOptions["onSend"]): ChatAppSender => ({
  name: "simulated",
  idempotent: true,
  send: (message) =>
    Effect.sync((): SendResult => {
      const settled = settle(`chat_app:${message.messageId}`)
      onSend?.({ channel: "chat_app", message, ...settled })
      return { providerMessageId: settled.providerMessageId }
    })
})

const smsSender = (settle: Memory, onSend: SimulatedSendersOptions["onSend"], provider: PhoneProvider): SmsSender => ({
  name: "simulated",
  idempotent: true,
  send: (message) =>
    Effect.sync((): SendResult => {
      const settled = settle(`sms:${message.messageId}`)
      onSend?.({ channel: "sms", provider, message, ...settled })
      return { providerMessageId: settled.providerMessageId }
    })
})

/** A chat-app sender and SMS senders sharing a memory of their own. */
export const makeSimulatedSenders = (options: SimulatedSendersOptions = {}): SimulatedSenders => {
  const settle = makeMemory(options.capacity ?? DEFAULT_CAPACITY)
  return {
    chatApp: chatAppSender(settle, options.onSend),
    sms: (provider) => smsSender(settle, options.onSend, provider)
  }
}

const processMemory = makeMemory(DEFAULT_CAPACITY)

/** The embedded default's chat-app sender (process-wide memory). */
export const simulatedChatAppSender: ChatAppSender = chatAppSender(processMemory, undefined)

/** The embedded default's SMS sender for a provider (process-wide memory; `capacity` is ignored). */
export const simulatedSmsSender = (provider: PhoneProvider, options: SimulatedSendersOptions = {}): SmsSender =>
  smsSender(processMemory, options.onSend, provider)
