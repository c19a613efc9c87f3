/**
 * The language-model port: the conversation so far in, the agent's reply out as it is written,
 * with tool calls. Adapters: any OpenAI-compatible chat completions API, streamed (OpenAI, Groq,
 * vLLM, Ollama, llama.cpp servers, by base URL), and the offline responder (the agent's greeting,
 * its knowledge bases, its fallback line), so an agent with no provider still converses.
 */
import type { Message, ToolCall } from "@voiceagent/domain/Conversation"
import * as Data from "effect/Data"
import type * as Stream from "effect/Stream"

export interface ToolSpec {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments. */
  readonly parameters: Readonly<Record<string, unknown>>
}

export interface LlmRequest {
  /** The agent's instructions. */
  readonly system: string
  readonly messages: ReadonlyArray<Message>
  readonly tools: ReadonlyArray<ToolSpec>
  readonly model?: string | undefined
  readonly temperature?: number | undefined
  /** Who the reply is for: the offline responder searches this tenant's knowledge bases. */
  readonly agent: {
    readonly tenantId: string
    readonly knowledgeBaseIds: ReadonlyArray<string>
    readonly metadata: { readonly [key: string]: unknown }
    readonly greeting: string
  }
}

export type LlmChunk = Data.TaggedEnum<{
  /** The next piece of the reply's text. */
  Text: { readonly text: string }
  /** The round ended asking for these tools (complete, accumulated across the stream). */
  ToolCalls: { readonly calls: ReadonlyArray<ToolCall> }
  /** The round ended: `stop`, `length`, `tool_calls`, or what the provider said. */
  Done: {
    readonly finishReason: string
    readonly promptTokens?: number | undefined
    readonly completionTokens?: number | undefined
  }
}>
export const LlmChunk = Data.taggedEnum<LlmChunk>()

export class LanguageModelError extends Data.TaggedError("LanguageModelError")<{
  readonly reason: string
  readonly retryable: boolean
}> {}

export interface LanguageModelProvider {
  readonly name: string
  /** The reply; interrupting the stream abandons the request (a barge-in). */
  readonly stream: (request: LlmRequest) => Stream.Stream<LlmChunk, LanguageModelError>
}
