/**
 * A `LanguageModelProvider` ("openai") for any OpenAI-compatible chat completions API, streamed:
 * OpenAI itself, and the servers that copy its `/v1/chat/completions` route (Groq, vLLM, Ollama,
 * llama.cpp's server, LM Studio, LocalAI, OpenRouter…), chosen by base URL.
 *
 * Request: `POST {baseUrl}/chat/completions`, `Authorization: Bearer {apiKey}` (left out without a
 * key, as local servers take none), `Accept: text/event-stream`, and
 * `{model, messages, tools?, tool_choice: "auto"?, stream: true, stream_options: {include_usage: true}, temperature?}`:
 *
 * - `messages`: the agent's instructions as the `system` message first (left out when empty), then
 *   the conversation. An assistant message with tool calls carries
 *   `tool_calls: [{id, type: "function", function: {name, arguments}}]` (and `content: null` when it
 *   said nothing); a tool result is `{role: "tool", tool_call_id, content}`. An assistant message
 *   the caller interrupted is sent with what they heard as its content and nothing else: the
 *   `interrupted` flag is dropped. The words stop where the caller stopped hearing them, which tells
 *   the model enough; a marker such as "[interrupted]" in the content is something models imitate,
 *   and what they write here is spoken. An assistant message with neither words nor tool calls
 *   (nothing was heard) is left out.
 * - `tools`: `{type: "function", function: {name, description, parameters}}` each, with
 *   `tool_choice: "auto"`; both left out when there are no tools (OpenAI refuses `tool_choice`
 *   without `tools`).
 * - `temperature`: the request's, else the provider's option, else left out (the server's default).
 *
 * Response: server-sent events, each `data: {chunk}`, ending with `data: [DONE]`. The decoder
 * takes events split anywhere across network reads, `\n`, `\r\n` or `\r` line ends, several
 * `data:` lines per event, comments (`: keep-alive`) and fields it does not know (ignored, as the
 * SSE standard says). Each chunk's first choice is read:
 *
 * - `delta.content` (and `delta.refusal`, which is also meant to be said) → `Text`, as it comes;
 *   `delta.reasoning_content`/`delta.reasoning` (reasoning models) is not said, but counts as the
 *   model working for the timeouts;
 * - `delta.tool_calls` fragments are accumulated by `index`; a fragment with a new `id` on an index
 *   already in use starts another call (Ollama-style servers send parallel calls all at index 0);
 *   a fragment without an index continues the last call. The first fragment brings the `id` and
 *   the name, later ones pieces of `arguments`. At the end of the round they are one `ToolCalls`
 *   of complete calls in the order they began; a call without an id gets `call_{n}`, one without
 *   arguments `{}`; a call without a name is a malformed answer.
 * - `finish_reason` (`stop`, `length`, `tool_calls`, `content_filter`…) and `usage`, which with
 *   `include_usage` comes in an extra chunk whose `choices` is `[]` (or `null`, as vLLM may send),
 *   become the final `Done{finishReason, promptTokens, completionTokens}`. Without a finish reason
 *   (a server that only sends `[DONE]`) the reason is `tool_calls` when there are calls, else `stop`.
 * - a chunk `{error: {message, type, code}}` (sent mid-stream by some servers) fails the round.
 *
 * The round ends at `[DONE]` (its `ToolCalls` and `Done` go out at once; the stream then reads what
 * is left of the body, for at most 250 ms, so that the connection is kept alive for the next round
 * rather than aborted); or at the end of the body, or when the idle timeout passes, if a finish
 * reason came (the answer is complete, only the usage is missing). A body that ends before
 * either, or a connection that breaks, fails retryably. A server that ignores `stream: true` and
 * answers one `chat.completion` JSON body is read too: its text, tool calls and usage, at once.
 *
 * Timeouts, on Effect's `Clock` (so a `TestClock` drives them): `firstTokenTimeoutMillis` from the
 * request until the first token (text, a tool-call fragment, reasoning, or a finish reason; the
 * connection, the headers and keep-alive comments all count against it), then
 * `idleTimeoutMillis` between one chunk and the next. Interrupting the stream's consumer (a
 * barge-in) aborts the HTTP request, as does ending the stream early or any failure.
 *
 * Failures are `LanguageModelError`s, with `retryable` as OpenAI's SDKs retry: a timeout, a
 * connection error, a cut stream, 408, 409, 429 and 5xx are retryable (except a 429 whose code is
 * `insufficient_quota`: waiting does not pay the bill); 400, 401, 403, 404, 422 and answers that are
 * not the documented shapes are not. The provider's own message is kept, with `retry-after`.
 *
 * Docs (checked):
 * - https://platform.openai.com/docs/api-reference/chat/create (request; `stream_options.include_usage`)
 * - https://platform.openai.com/docs/api-reference/chat/streaming (the chunk object)
 * - https://platform.openai.com/docs/guides/function-calling (streaming: accumulate `tool_calls` by index)
 * - https://platform.openai.com/docs/guides/error-codes
 * - https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type { Message, ToolCall } from "@voiceagent/domain/Conversation"
import * as Chunk from "effect/Chunk"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { record, trimSlash } from "../Http/ProviderHttp.js"
import {
  LanguageModelError,
  type LanguageModelProvider,
  LlmChunk,
  type LlmRequest,
  type ToolSpec
} from "./LanguageModel.js"

// ---------------------------------------------------------------------------
// Options
// ---------------------------------------------------------------------------

export interface OpenAiChatOptions {
  /** The API's base URL; requests go to `{baseUrl}/chat/completions`. `https://api.openai.com/v1` unless set. */
  readonly baseUrl?: string | undefined
  /** Sent as a bearer token; no `Authorization` header when unset (local servers). */
  readonly apiKey?: Redacted.Redacted<string> | undefined
  /** The model when the request names none; `gpt-4o-mini` unless set. */
  readonly model?: string | undefined
  /** The temperature when the request gives none; left to the server unless set. */
  readonly temperature?: number | undefined
  /** From the request to the first token (ms); 10 s unless set. */
  readonly firstTokenTimeoutMillis?: number | undefined
  /** Between chunks once tokens flow (ms); 5 s unless set. */
  readonly idleTimeoutMillis?: number | undefined
  /**
   * Ask for the token counts (`stream_options.include_usage`);
   * true unless set. Some older compatible servers refuse it.
   */
  readonly includeUsage?: boolean | undefined
  /** The provider's name; `openai` unless set. */
  readonly name?: string | undefined
}

export const OPENAI_CHAT_DEFAULT_BASE_URL = "https://api.openai.com/v1"
export const OPENAI_CHAT_DEFAULT_MODEL = "gpt-4o-mini"
export const OPENAI_CHAT_DEFAULT_FIRST_TOKEN_TIMEOUT_MILLIS = 10_000
export const OPENAI_CHAT_DEFAULT_IDLE_TIMEOUT_MILLIS = 5_000
/** After `[DONE]`, how long the rest of the body is awaited so the connection can be kept alive (ms). */
const DRAIN_MILLIS = 250

// ---------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------

export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
    readonly role: "assistant"
    readonly content: string | null
    readonly tool_calls?: ReadonlyArray<{
      readonly id: string
      readonly type: "function"
      readonly function: { readonly name: string; readonly arguments: string }
    }>
  }
  | { readonly role: "tool"; readonly tool_call_id: string; readonly content: string }

/** Arguments as sent back to the model: what it wrote, `{}` for nothing. */
const argumentsText = (text: string) => (text.trim() === "" ? "{}" : text)

/** The conversation as chat messages, the instructions first (see the module comment). */
export const chatMessages = (system: string, messages: ReadonlyArray<Message>): Array<ChatMessage> => {
  const out: Array<ChatMessage> = []
  if (system.trim() !== "") out.push({ role: "system", content: system })
  for (const message of messages) {
    switch (message.role) {
      case "user":
        out.push({ role: "user", content: message.content })
        break
      case "assistant": {
        const calls = message.toolCalls ?? []
        if (calls.length === 0) {
          // an interrupted turn is what was heard; nothing heard, nothing to send
          if (message.content !== "") out.push({ role: "assistant", content: message.content })
          break
        }
        out.push({
          role: "assistant",
          content: message.content === "" ? null : message.content,
          tool_calls: calls.map((call) => ({
            id: call.id,
            type: "function" as const,
            function: { name: call.name, arguments: argumentsText(call.arguments) }
          }))
        })
        break
      }
      case "tool":
        out.push({ role: "tool", tool_call_id: message.toolCallId, content: message.content })
        break
    }
  }
  return out
}

export const chatTools = (tools: ReadonlyArray<ToolSpec>) =>
  tools.map((tool) => ({
    type: "function" as const,
    function: { name: tool.name, description: tool.description, parameters: tool.parameters }
  }))

/** The request body, as the API documents it. */
export const chatRequestBody = (
  request: LlmRequest,
  options: { readonly model: string; readonly temperature?: number | undefined; readonly includeUsage: boolean }
) => {
  const temperature = request.temperature ?? options.temperature
  return {
    model: request.model ?? options.model,
    messages: chatMessages(request.system, request.messages),
    ...(request.tools.length === 0 ? {} : { tools: chatTools(request.tools), tool_choice: "auto" as const }),
    stream: true as const,
    ...(options.includeUsage ? { stream_options: { include_usage: true } } : {}),
    ...(temperature === undefined ? {} : { temperature })
  }
}

// ---------------------------------------------------------------------------
// Server-sent events
// ---------------------------------------------------------------------------

export interface SseEvent {
  /** The `event:` field; `message` unless given. */
  readonly event: string
  /** The `data:` lines, joined by `\n`. */
  readonly data: string
}

/**
 * An incremental `text/event-stream` decoder: text in as it arrives (split anywhere), events out.
 * Events without data (only comments, an `id:`, a `retry:`) are not dispatched, as the standard
 * says. At the end of the body, an event whose last line was complete is dispatched even without
 * the blank line that should end it; a line cut off by the end is dropped.
 */
export class SseDecoder {
  private buffer = ""
  private data: Array<string> = []
  private event = ""

  feed(text: string): Array<SseEvent> {
    this.buffer += text
    const events: Array<SseEvent> = []
    let start = 0
    for (;;) {
      let end = -1
      let next = -1
      for (let i = start; i < this.buffer.length; i++) {
        const c = this.buffer.charCodeAt(i)
        if (c === 10) {
          end = i
          next = i + 1
          break
        }
        if (c === 13) {
          // a lone CR ends a line too; at the end of what arrived, wait to see whether LF follows
          if (i + 1 === this.buffer.length) break
          end = i
          next = this.buffer.charCodeAt(i + 1) === 10 ? i + 2 : i + 1
          break
        }
      }
      if (end < 0) break
      this.line(this.buffer.slice(start, end), events)
      start = next
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  /** The body ended. */
  end(): Array<SseEvent> {
    const events: Array<SseEvent> = []
    if (this.buffer.endsWith("\r")) this.line(this.buffer.slice(0, -1), events)
    this.buffer = ""
    this.dispatch(events)
    return events
  }

  private line(line: string, events: Array<SseEvent>) {
    if (line === "") return this.dispatch(events)
    if (line.startsWith(":")) return
    const colon = line.indexOf(":")
    const field = colon < 0 ? line : line.slice(0, colon)
    let value = colon < 0 ? "" : line.slice(colon + 1)
    if (value.startsWith(" ")) value = value.slice(1)
    if (field === "data") this.data.push(value)
    else if (field === "event") this.event = value
    // id, retry and unknown fields: nothing to do
  }

  private dispatch(events: Array<SseEvent>) {
    if (this.data.length > 0) {
      events.push({ event: this.event === "" ? "message" : this.event, data: this.data.join("\n") })
    }
    this.data = []
    this.event = ""
  }
}

// ---------------------------------------------------------------------------
// Chunks
// ---------------------------------------------------------------------------

interface CallSlot {
  id: string
  name: string
  arguments: string
}

export interface ChunkResult {
  /** What to pass on now. */
  readonly out: ReadonlyArray<LlmChunk>
  /** The chunk carried a token (text, a tool-call fragment, reasoning) or the finish reason. */
  readonly token: boolean
  /** Why the chunk ends the round as a failure. */
  readonly error?: { readonly message: string; readonly retryable: boolean } | undefined
}

const nonEmptyString = (
  value: unknown
): string | undefined => (typeof value === "string" && value !== "" ? value : undefined)
const count = (
  value: unknown
): number | undefined => (typeof value === "number" && Number.isFinite(value) ? value : undefined)

/** An error object sent in place of an answer or a chunk: its message and whether trying again may help. */
const providerError = (
  error: unknown
): { readonly message: string; readonly code?: string | undefined; readonly type?: string | undefined } => {
  const fields = record(error)
  const message = typeof error === "string" ? error : nonEmptyString(fields.message) ?? JSON.stringify(error)
  const code = typeof fields.code === "string" || typeof fields.code === "number" ? String(fields.code) : undefined
  return { message, code, type: nonEmptyString(fields.type) }
}

/**
 * The state of one streamed round: chunks in (parsed JSON), `Text` out as it comes, the tool calls
 * and the finish kept for `finish`.
 */
export class ChatStreamAccumulator {
  private readonly calls: Array<CallSlot> = []
  private readonly byIndex = new Map<number, CallSlot>()
  /** The finish reason, once one came. */
  finishReason: string | undefined = undefined
  promptTokens: number | undefined = undefined
  completionTokens: number | undefined = undefined

  push(chunk: unknown): ChunkResult {
    const fields = record(chunk)
    if (fields.error !== undefined && fields.error !== null) {
      const error = providerError(fields.error)
      return {
        out: [],
        token: false,
        error: {
          message: `sent an error: ${error.message}${error.code === undefined ? "" : ` (${error.code})`}`,
          retryable: error.type !== "invalid_request_error" && error.code !== "insufficient_quota"
        }
      }
    }
    if (typeof chunk !== "object" || chunk === null || Array.isArray(chunk)) {
      return {
        out: [],
        token: false,
        error: { message: `sent a chunk that is not an object: ${JSON.stringify(chunk)}`, retryable: false }
      }
    }
    const usage = record(fields.usage)
    const prompt = count(usage.prompt_tokens)
    const completion = count(usage.completion_tokens)
    if (prompt !== undefined) this.promptTokens = prompt
    if (completion !== undefined) this.completionTokens = completion

    // `choices` may be [] (the usage chunk), null (vLLM) or missing; only the first choice counts
    const choices = Array.isArray(fields.choices) ? fields.choices : []
    const out: Array<LlmChunk> = []
    let token = false
    for (const item of choices) {
      const choice = record(item)
      if ((count(choice.index) ?? 0) !== 0) continue
      const delta = record(choice.delta)
      for (const text of [delta.content, delta.refusal]) {
        const said = nonEmptyString(text)
        if (said !== undefined) {
          out.push(LlmChunk.Text({ text: said }))
          token = true
        }
      }
      if (nonEmptyString(delta.reasoning_content) !== undefined || nonEmptyString(delta.reasoning) !== undefined) {
        token = true
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const fragment of delta.tool_calls) this.fragment(record(fragment))
        if (delta.tool_calls.length > 0) token = true
      }
      const finish = nonEmptyString(choice.finish_reason)
      if (finish !== undefined) {
        this.finishReason = finish
        token = true
      }
    }
    return { out, token }
  }

  private fragment(fragment: Readonly<Record<string, unknown>>) {
    const index = count(fragment.index)
    const id = nonEmptyString(fragment.id)
    const fn = record(fragment.function)
    let slot = index === undefined ? this.calls.at(-1) : this.byIndex.get(index)
    if (slot === undefined || (id !== undefined && slot.id !== "" && slot.id !== id)) {
      slot = { id: "", name: "", arguments: "" }
      this.calls.push(slot)
      if (index !== undefined) this.byIndex.set(index, slot)
    }
    if (id !== undefined && slot.id === "") slot.id = id
    const name = nonEmptyString(fn.name)
    // the name comes whole in the first fragment; a server that repeats it is not appending to it
    if (name !== undefined && name !== slot.name) slot.name = slot.name === "" ? name : slot.name + name
    if (typeof fn.arguments === "string") slot.arguments += fn.arguments
    else if (typeof fn.arguments === "object" && fn.arguments !== null) slot.arguments += JSON.stringify(fn.arguments)
  }

  /** Whether any tool call began. */
  get hasCalls(): boolean {
    return this.calls.length > 0
  }

  /** The end of the round: the tool calls, if any, then `Done`; or why the calls cannot be used. */
  finish(): { readonly out: ReadonlyArray<LlmChunk> } | { readonly error: string } {
    const calls: Array<ToolCall> = []
    for (const [i, slot] of this.calls.entries()) {
      if (slot.name === "") return { error: `sent tool call ${i} without a name` }
      calls.push({
        id: slot.id === "" ? `call_${i}` : slot.id,
        name: slot.name,
        arguments: argumentsText(slot.arguments)
      })
    }
    const done = LlmChunk.Done({
      finishReason: this.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop"),
      promptTokens: this.promptTokens,
      completionTokens: this.completionTokens
    })
    return { out: calls.length === 0 ? [done] : [LlmChunk.ToolCalls({ calls }), done] }
  }
}

/**
 * A whole `chat.completion` body (a server that ignored `stream: true`) as the chunks a stream of it
 * would have given.
 */
export const completionChunks = (
  body: unknown
): { readonly out: ReadonlyArray<LlmChunk> } | { readonly error: string } => {
  const fields = record(body)
  const first = Array.isArray(fields.choices) ? record(fields.choices[0]) : undefined
  if (first === undefined || fields.choices === undefined) return { error: "sent a completion without choices" }
  const message = record(first.message)
  const accumulator = new ChatStreamAccumulator()
  const asChunk = {
    choices: [{
      index: 0,
      delta: { content: message.content, refusal: message.refusal, tool_calls: message.tool_calls },
      finish_reason: first.finish_reason
    }],
    usage: fields.usage
  }
  const pushed = accumulator.push(asChunk)
  if (pushed.error !== undefined) return { error: pushed.error.message }
  const finished = accumulator.finish()
  return "error" in finished ? finished : { out: [...pushed.out, ...finished.out] }
}

// ---------------------------------------------------------------------------
// Failures
// ---------------------------------------------------------------------------

/** Retryable statuses, as OpenAI's SDKs retry them. */
const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500

const parseJson = (text: string): { readonly ok: true; readonly value: unknown } | { readonly ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) }
  } catch {
    return { ok: false }
  }
}

/** An answer other than 2xx: OpenAI's `{error: {message, type, code}}` and the variants compatible servers send. */
export const statusFailure = (
  label: string,
  status: number,
  bodyText: string,
  headers: Readonly<Record<string, string | undefined>>
): LanguageModelError => {
  const parsed = parseJson(bodyText)
  const fields = parsed.ok ? record(parsed.value) : {}
  const error = record(fields.error)
  const message = (parsed.ok ? nonEmptyString(parsed.value) : undefined) ??
    nonEmptyString(error.message) ??
    nonEmptyString(fields.error) ??
    nonEmptyString(fields.message) ??
    nonEmptyString(fields.detail) ??
    (parsed.ok ? undefined : nonEmptyString(bodyText.trim().slice(0, 200)))
  const code = typeof error.code === "string" || typeof error.code === "number" ? String(error.code) : undefined
  const retryAfterMs = Number(headers["retry-after-ms"])
  const retryAfter = Number.isFinite(retryAfterMs) && headers["retry-after-ms"] !== undefined
    ? retryAfterMs / 1000
    : headers["retry-after"] === undefined
    ? undefined
    : Number(headers["retry-after"])
  return new LanguageModelError({
    retryable: retryableStatus(status) && code !== "insufficient_quota",
    reason: `${label} answered ${status}` +
      (message === undefined ? "" : `: ${message}`) +
      (code === undefined ? "" : ` (${code})`) +
      (retryAfter === undefined || !Number.isFinite(retryAfter) ? "" : ` (retry after ${retryAfter} s)`)
  })
}

// ---------------------------------------------------------------------------
// The provider
// ---------------------------------------------------------------------------

const positive = (n: number) => n > 0 && Number.isFinite(n)

/**
 * The provider on an OpenAI-compatible chat completions API. Configuration is the caller's to
 * check: an invalid URL or a timeout that is not positive is a defect here.
 */
export const make = (
  options: OpenAiChatOptions = {}
): Effect.Effect<LanguageModelProvider, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const baseUrl = options.baseUrl ?? OPENAI_CHAT_DEFAULT_BASE_URL
    const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined
    if (base === undefined || (base.protocol !== "http:" && base.protocol !== "https:")) {
      return yield* Effect.dieMessage(`OpenAiChat: baseUrl must be an http(s) URL, got ${baseUrl}`)
    }
    const firstTokenMillis = options.firstTokenTimeoutMillis ?? OPENAI_CHAT_DEFAULT_FIRST_TOKEN_TIMEOUT_MILLIS
    const idleMillis = options.idleTimeoutMillis ?? OPENAI_CHAT_DEFAULT_IDLE_TIMEOUT_MILLIS
    if (!positive(firstTokenMillis) || !positive(idleMillis)) {
      return yield* Effect.dieMessage(
        `OpenAiChat: timeouts must be positive, got firstTokenTimeoutMillis ${firstTokenMillis}, idleTimeoutMillis ` +
          `${idleMillis}`
      )
    }
    const model = options.model ?? OPENAI_CHAT_DEFAULT_MODEL
    const includeUsage = options.includeUsage ?? true
    const label = `Chat completions API at ${base.host}`
    const endpoint = `${trimSlash(baseUrl)}/chat/completions`
    const apiKey = options.apiKey
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.mapRequest((request) => {
        const accepting = HttpClientRequest.setHeader(request, "accept", "text/event-stream")
        return apiKey === undefined ? accepting : HttpClientRequest.bearerToken(accepting, apiKey)
      })
    )

    const failure = (reason: string, retryable: boolean) =>
      new LanguageModelError({ reason: `${label} ${reason}`, retryable })
    const unreachable = (error: HttpClientError.HttpClientError) =>
      failure(`could not be reached: ${error.message}`, true)
    const broken = (error: HttpClientError.HttpClientError) => failure(`broke off the answer: ${error.message}`, true)

    const stream = (request: LlmRequest): Stream.Stream<LlmChunk, LanguageModelError> =>
      Stream.unwrapScoped(Effect.gen(function*() {
        const startedAt = yield* Clock.currentTimeMillis
        // the first token must come by startedAt + firstTokenMillis; after it, each chunk within idleMillis of the last
        let firstToken = false
        let lastChunkAt = startedAt
        const timedOut = () =>
          firstToken
            ? failure(`sent nothing for ${idleMillis / 1000} s in the middle of the answer`, true)
            : failure(`sent no first token within ${firstTokenMillis / 1000} s`, true)
        const withinDeadline = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | LanguageModelError> =>
          Effect.flatMap(Clock.currentTimeMillis, (now) => {
            const remaining = (firstToken ? lastChunkAt + idleMillis : startedAt + firstTokenMillis) - now
            return remaining <= 0
              ? Effect.fail(timedOut())
              : Effect.timeoutFail(effect, { duration: remaining, onTimeout: timedOut })
          })

        const body = chatRequestBody(request, { model, temperature: options.temperature, includeUsage })
        const response = yield* withinDeadline(
          client.execute(
            HttpClientRequest.post(endpoint).pipe(HttpClientRequest.bodyText(JSON.stringify(body), "application/json"))
          ).pipe(Effect.mapError(unreachable))
        )
        if (response.status < 200 || response.status >= 300) {
          const text = yield* withinDeadline(response.text).pipe(Effect.orElseSucceed(() => ""))
          return yield* Effect.fail(statusFailure(label, response.status, text, response.headers))
        }
        if ((response.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
          // the server ignored `stream: true`: one answer, all at once
          const text = yield* withinDeadline(response.text.pipe(Effect.mapError(broken)))
          const parsed = parseJson(text)
          const chunks = parsed.ok ? completionChunks(parsed.value) : { error: "sent a body that is not JSON" }
          if ("error" in chunks) return yield* Effect.fail(failure(chunks.error, false))
          return Stream.fromIterable(chunks.out)
        }

        const pull = yield* Stream.toPull(response.stream.pipe(Stream.decodeText()))
        const decoder = new SseDecoder()
        const accumulator = new ChatStreamAccumulator()
        const pending: Array<LlmChunk> = []
        let sawDone = false
        // reading the answer; after [DONE], reading the rest of the body (so the connection can be
        // kept alive rather than aborted) until this time at the latest; ended
        let phase: "reading" | "draining" | "ended" = "reading"
        let drainUntil = 0

        /** Takes events in; a failure ends the round. */
        const take = (events: ReadonlyArray<SseEvent>, now: number): LanguageModelError | undefined => {
          for (const event of events) {
            if (sawDone) return undefined
            const data = event.data.trim()
            if (data === "[DONE]") {
              sawDone = true
              return undefined
            }
            const parsed = parseJson(data)
            if (!parsed.ok) {
              return event.event === "error"
                ? failure(`sent an error: ${data.slice(0, 200)}`, true)
                : failure(`sent a chunk that is not JSON: ${data.slice(0, 200)}`, false)
            }
            const result = accumulator.push(parsed.value)
            if (result.error !== undefined) return failure(result.error.message, result.error.retryable)
            pending.push(...result.out)
            if (result.token) firstToken = true
            if (firstToken) lastChunkAt = now
          }
          return undefined
        }

        /** The round is complete: its tool calls and `Done` go out. */
        const finish = (
          then: "draining" | "ended",
          now: number
        ): Effect.Effect<void, Option.Option<LanguageModelError>> => {
          const finished = accumulator.finish()
          if ("error" in finished) return Effect.fail(Option.some(failure(finished.error, false)))
          pending.push(...finished.out)
          phase = then
          drainUntil = now + DRAIN_MILLIS
          return Effect.void
        }

        const next: Effect.Effect<Chunk.Chunk<LlmChunk>, Option.Option<LanguageModelError>> = Effect.gen(function*() {
          for (;;) {
            if (pending.length > 0) return Chunk.unsafeFromArray(pending.splice(0))
            if (phase === "ended") return yield* Effect.fail(Option.none())
            if (phase === "draining") {
              // whatever follows [DONE] is not read; the end of the body, a failure or the time limit ends the stream
              const remaining = drainUntil - (yield* Clock.currentTimeMillis)
              const more = remaining <= 0 ? Option.none() : yield* Effect.option(Effect.timeout(pull, remaining))
              if (Option.isNone(more)) phase = "ended"
              continue
            }
            const pulled = yield* pull.pipe(
              Effect.map(Option.some),
              Effect.catchAll((end) =>
                Option.match(end, {
                  onNone: () => Effect.succeed(Option.none()),
                  onSome: (e) => Effect.fail(broken(e))
                })
              ),
              withinDeadline,
              Effect.either
            )
            const now = yield* Clock.currentTimeMillis
            if (pulled._tag === "Left") {
              // a complete answer whose usage or [DONE] never came is still the answer
              if (accumulator.finishReason === undefined) return yield* Effect.fail(Option.some(pulled.left))
              yield* finish("ended", now)
              continue
            }
            if (Option.isNone(pulled.right)) {
              const error = take(decoder.end(), now)
              if (error !== undefined) return yield* Effect.fail(Option.some(error))
              if (!sawDone && accumulator.finishReason === undefined) {
                return yield* Effect.fail(Option.some(failure("ended the stream before the answer was complete", true)))
              }
              yield* finish("ended", now)
              continue
            }
            for (const text of pulled.right.value) {
              const error = take(decoder.feed(text), now)
              if (error !== undefined) return yield* Effect.fail(Option.some(error))
            }
            if (sawDone) yield* finish("draining", now)
          }
        })
        return Stream.repeatEffectChunkOption(next)
      })).pipe(
        Stream.withSpan("OpenAiChat.stream", {
          attributes: { model: request.model ?? model, messages: request.messages.length }
        })
      )

    const provider: LanguageModelProvider = { name: options.name ?? "openai", stream }
    return provider
  })
