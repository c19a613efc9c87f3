/**
 * The `LanguageModelProvider` ("offline") of an agent with no model configured: the retrieval
 * responder (`AgentBrain`) behind the language-model port, so such an agent still converses: its
 * greeting, answers from its knowledge bases, its `metadata.fallback_message`, and a goodbye that
 * ends the call.
 *
 * For the last user message of the request, the brain's reply streams as `Text`, one sentence at a
 * time (sentences after the first with a leading space, so the pieces add up to the reply), then
 * `Done{finishReason: "stop"}`. When the caller takes leave (`isGoodbye`, the brain's own test) or
 * the brain answers with its goodbye, the round ends with `ToolCalls` of one `end_call` after the
 * text (`finishReason: "tool_calls"`): the conversation machine lets the goodbye play and hangs
 * up. `end_call` is asked for whether or not the request offers it (the engine always does; the
 * machine carries it out either way); other tools are ignored, and no token counts are given.
 *
 * Other requests: with no user message at all, the agent's greeting; when the last user message
 * has already been answered (an assistant message follows it: a tool round), nothing more, `Done`
 * at once. The brain cannot fail; should it die, the round fails with a `LanguageModelError` that
 * is not retryable (the engine says its fallback line).
 *
 * The brain is the `AgentBrain` service: `make` takes it from the context (the runtime provides
 * `AgentBrain.responder`, over the knowledge bases), `fromBrain` from a value.
 */
import { splitSentences } from "@voiceagent/domain/Chunking"
import { END_CALL_TOOL, type Message } from "@voiceagent/domain/Conversation"
import type { TenantId } from "@voiceagent/domain/Ids"
import type * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AgentBrain, type AgentPersona, GOODBYE, isGoodbye, type Turn } from "../Brain/AgentBrain.js"
import { LanguageModelError, type LanguageModelProvider, LlmChunk, type LlmRequest } from "./LanguageModel.js"

export const OFFLINE_PROVIDER = "offline"

/** The agent as the brain knows it. */
export const personaOf = (request: LlmRequest): AgentPersona => ({
  // the port carries the tenant as a plain string; the brain only hands it on to retrieval
  tenantId: request.agent.tenantId as TenantId,
  name: typeof request.agent.metadata["name"] === "string" ? request.agent.metadata["name"] : "",
  greetMessage: request.agent.greeting,
  agentPrompt: request.system,
  metadata: request.agent.metadata,
  knowledgeBaseIds: request.agent.knowledgeBaseIds
})

/** The conversation before the utterance, as the brain's turns (tool calls and results are not turns). */
export const turnsOf = (messages: ReadonlyArray<Message>): Array<Turn> =>
  messages.flatMap((message): Array<Turn> =>
    message.role === "user"
      ? [{ speaker: "customer", text: message.content }]
      : message.role === "assistant" && message.content.trim() !== ""
      ? [{ speaker: "agent", text: message.content }]
      : []
  )

/** `text` as deltas, one a sentence; joined they are the text with its sentences one space apart. */
export const sentenceDeltas = (text: string): Array<string> =>
  splitSentences(text).map((sentence, i) => (i === 0 ? sentence : ` ${sentence}`))

const said = (text: string) => sentenceDeltas(text).map((piece) => LlmChunk.Text({ text: piece }))

/** The offline provider over this brain. */
export const fromBrain = (brain: Context.Tag.Service<AgentBrain>): LanguageModelProvider => ({
  name: OFFLINE_PROVIDER,
  stream: (request) =>
    Stream.unwrap(
      Effect.gen(function*() {
        const persona = personaOf(request)
        const messages = request.messages
        let last = messages.length - 1
        while (last >= 0 && messages[last]!.role !== "user") last--
        if (last < 0) {
          const greeting = yield* brain.greet(persona)
          return Stream.fromIterable([...said(greeting), LlmChunk.Done({ finishReason: "stop" })])
        }
        // answered already (the round after a tool): nothing more to say
        if (messages.slice(last + 1).some((message) => message.role === "assistant")) {
          return Stream.make(LlmChunk.Done({ finishReason: "stop" }))
        }
        const utterance = messages[last]!.content
        const reply = yield* brain.reply(persona, turnsOf(messages.slice(0, last)), utterance)
        if (!isGoodbye(utterance) && reply.trim() !== GOODBYE) {
          return Stream.fromIterable([...said(reply), LlmChunk.Done({ finishReason: "stop" })])
        }
        const endCall = { id: `call_end_${messages.length}`, name: END_CALL_TOOL, arguments: "{}" }
        return Stream.fromIterable([
          ...said(reply),
          LlmChunk.ToolCalls({ calls: [endCall] }),
          LlmChunk.Done({ finishReason: "tool_calls" })
        ])
      }).pipe(
        Effect.catchAllDefect((defect) =>
          Effect.fail(
            new LanguageModelError({ reason: `the offline responder failed: ${String(defect)}`, retryable: false })
          )
        )
      )
    )
})

/** The offline provider over the `AgentBrain` in the context. */
export const make: Effect.Effect<LanguageModelProvider, never, AgentBrain> = Effect.map(AgentBrain, fromBrain)
