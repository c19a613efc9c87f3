/**
 * A fake of OpenAI's chat completions API on a loopback port, for tests, built from its documented
 * request and response shapes (the design notes' "FakeOpenAI", voice-pipeline §1.4):
 *
 * - `POST {url}/chat/completions` (`url` is `http://127.0.0.1:{port}/v1`; `/chat/completions`
 *   without the `/v1` is answered too); another method is 405, another path 404;
 * - bearer auth when the fake has an API key: without it, or with another, 401 `{error: {message: "Incorrect API key
 *   provided…", type: "invalid_request_error", param: null, code: "invalid_api_key"}}`;
 * - the body is checked as OpenAI checks it, each refusal a 400 in its error shape: JSON; a known
 *   `model` (else 404 `model_not_found`); `messages` a non-empty array of `system`, `developer`,
 *   `user`, `assistant` and `tool` messages with the content each role takes (`null` only for an
 *   assistant with `tool_calls`); assistant `tool_calls` `{id, type: "function", function: {name, arguments}}`;
 *   every tool message answering a call of the assistant message before it, and every such call
 *   answered before the next other message; `tools` `{type: "function", function: {name, description?, parameters?}}`
 *   with names of `[a-zA-Z0-9_-]{1,64}` and parameters an object schema; `tool_choice` only with
 *   tools; `stream_options` only with `stream: true`; `temperature` from 0 to 2;
 * - the answer, streamed (`stream: true`) as server-sent events `data: {chunk}\n\n` and
 *   `data: [DONE]\n\n`: a first chunk `{role: "assistant", content: ""}` (`content: null` when the
 *   reply has no text), the text in deltas of 1 to 4 characters, each tool call as a first fragment
 *   `{index, id, type: "function", function: {name, arguments: ""}}` and at least two fragments of
 *   its arguments, a chunk with the finish reason and an empty delta, then (when the request set
 *   `stream_options.include_usage`) a chunk with `choices: []` and the usage, the other chunks
 *   carrying `usage: null`; or, without `stream`, one `chat.completion` body.
 *
 * Dialects: `openai` as above; `ollama` puts every parallel call at index 0, told apart by its
 * new `id` (as Ollama-compatible servers do); `vllm` sends the usage chunk with `choices: null`.
 *
 * The reply is chosen per request: the next one queued with `enqueue`, else the first script whose
 * `when` matches the last user message (a string: contained, ignoring case; a RegExp; or a test of
 * the whole request), else the default reply. A script with a `fault` answers every request it
 * matches with that fault instead (a model that fails for one conversation, however often asked).
 *
 * Times: the first chunk waits `firstTokenDelayMillis` and each later chunk `chunkDelayMillis` (the first text delta
 * goes with the role chunk), the end of the body `endDelayMillis` after `[DONE]`, on the `Clock` of the fiber that made
 * the fake: real time under a live clock, a `TestClock`'s time in a test that adjusts it. The delay is registered
 * before the request is announced to `awaitRequests`, so a test can await the request and then adjust the clock.
 *
 * Faults, one per request, queued with `fault`: an answer of any status (a 429 with `retry-after` unless told
 * otherwise), a raw body (golden streams from the docs), a hung request, a reset connection, a stream cut after some
 * events (ended cleanly or reset), a stream that stalls after some events, and raw lines (garbage, SSE comments,
 * unknown fields, broken JSON) written into a stream after some events.
 *
 * Every request is recorded (to assert the context sent); streams the client abandoned before
 * their end (a disconnect) are counted, and can be awaited.
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import type * as Scope from "effect/Scope"
import type * as http from "node:http"
import { hash, httpServer, listen, makeWaiters, openAiError, random, readJsonRequest, record } from "./FakeHttp.js"

export interface RecordedChatRequest {
  readonly method: string
  /** The path and query string. */
  readonly path: string
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>
  readonly rawBody: string
  /**
   * The parsed JSON body; `undefined` when it is not JSON. Whatever the client sent, for tests to read
   * into as they expect it (a `ChatRequestBody` once the fake has accepted it).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- `unknown` would make every test cast it
  readonly body: any
  /** The client's port: requests on one kept-alive connection share it. */
  readonly remotePort: number | undefined
}

/** A request body the fake accepted: a JSON object; the fields it reads are checked where it reads them. */
export interface ChatRequestBody {
  readonly model?: unknown
  readonly messages?: ReadonlyArray<unknown>
  readonly stream?: unknown
  readonly stream_options?: unknown
  readonly [field: string]: unknown
}

export interface FakeToolCall {
  readonly name: string
  /** JSON text, or a value to write as JSON. */
  readonly arguments: string | Readonly<Record<string, unknown>>
  /** `call_…` derived from the request and position unless given. */
  readonly id?: string
}

export interface FakeChatReply {
  readonly text?: string
  readonly toolCalls?: ReadonlyArray<FakeToolCall>
  /** `tool_calls` when there are calls, else `stop`, unless given. */
  readonly finishReason?: string
  /** The counts in the usage chunk; about four characters a token unless given; `false` sends no usage chunk. */
  readonly usage?: { readonly prompt_tokens: number; readonly completion_tokens: number } | false
}

export interface FakeChatScript {
  /** Contained in the last user message (ignoring case), matched by it, or a test of the request body. */
  readonly when: string | RegExp | ((body: ChatRequestBody) => boolean)
  readonly reply?: FakeChatReply | ((body: ChatRequestBody) => FakeChatReply)
  /** Instead of a reply, this fault for every request the script matches. */
  readonly fault?: FakeChatFault
}

export type FakeChatFault =
  /**
   * Answer with this status (and body: OpenAI's error shape for the status unless given; a string is sent as it is).
   */
  | {
    readonly _tag: "Respond"
    readonly status: number
    readonly body?: unknown
    readonly headers?: Readonly<Record<string, string>>
  }
  /** Never answer; the connection stays open until the client gives up. */
  | { readonly _tag: "Hang" }
  /** Drop the connection without an answer. */
  | { readonly _tag: "Reset" }
  /** Send this many events of the stream, then end the body (`end`, no `[DONE]`) or drop the connection (`reset`). */
  | { readonly _tag: "Cut"; readonly afterEvents: number; readonly how?: "end" | "reset" }
  /** Send this many events, then nothing more; the connection stays open. */
  | { readonly _tag: "Stall"; readonly afterEvents: number }
  /**
   * Answer with this raw body (200 and `text/event-stream` unless given); several pieces are
   * written one after the other; with `hold` the connection then stays open.
   */
  | {
    readonly _tag: "Body"
    readonly body: string | ReadonlyArray<string>
    readonly status?: number
    readonly contentType?: string
    readonly hold?: boolean
  }
  /**
   * Write these raw lines (each followed by `\n`) into the stream after this many events (1 unless
   * given), then go on.
   */
  | { readonly _tag: "Lines"; readonly lines: ReadonlyArray<string>; readonly afterEvents?: number }

export type FakeChatDialect = "openai" | "ollama" | "vllm"

export interface FakeOpenAiChatOptions {
  /** When set, every request must carry `Authorization: Bearer {apiKey}`. */
  readonly apiKey?: string
  /** The models the fake knows; `gpt-4o-mini` unless given. */
  readonly models?: ReadonlyArray<string>
  readonly scripts?: ReadonlyArray<FakeChatScript>
  /** When nothing is queued and no script matches; `{text: "I'm sorry, I don't know."}` unless given. */
  readonly defaultReply?: FakeChatReply
  readonly firstTokenDelayMillis?: number
  readonly chunkDelayMillis?: number
  /** Between `data: [DONE]` and the end of the body. */
  readonly endDelayMillis?: number
  readonly dialect?: FakeChatDialect
}

export interface FakeOpenAiChatServer {
  /** `http://127.0.0.1:{port}/v1` */
  readonly url: string
  readonly apiKey: string | undefined
  readonly requests: () => ReadonlyArray<RecordedChatRequest>
  /** The next request's reply, before scripts. */
  readonly enqueue: (...replies: ReadonlyArray<FakeChatReply>) => void
  /** The next request's fault. */
  readonly fault: (fault: FakeChatFault) => void
  readonly setDelays: (
    delays: { readonly firstTokenMillis?: number; readonly chunkMillis?: number; readonly endMillis?: number }
  ) => void
  /** Streams the client left before their end. */
  readonly abortedStreams: () => number
  /** Streams sent to their end (`[DONE]`, a cut or a stall do not count). */
  readonly completedStreams: () => number
  /** Waits (real time, at most `millis`) until this many requests have come. */
  readonly awaitRequests: (count: number, millis?: number) => Effect.Effect<void>
  /** Waits (real time, at most `millis`) until the client has left this many streams. */
  readonly awaitAborted: (count: number, millis?: number) => Effect.Effect<void>
  /** The SSE events the fake would send for this reply (for contract tests). */
  readonly eventsFor: (reply: FakeChatReply, body?: ChatRequestBody) => ReadonlyArray<string>
}

const MODEL_DEFAULT = "gpt-4o-mini"
const ROLES = ["system", "developer", "user", "assistant", "tool"]
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/

const isRecord = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value)

interface Answer {
  readonly status: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

const invalid = (message: string, param: string | null = null, code: string | null = null): Answer => ({
  status: 400,
  body: openAiError(message, "invalid_request_error", code, param)
})

const defaultFault = (status: number, model: string): Answer =>
  status === 429
    ? {
      status,
      body: openAiError(
        `Rate limit reached for ${model} in organization org-fake on requests per min (RPM): Limit 500, Used 500, ` +
          `Requested 1. Please try again in 20s.`,
        "requests",
        "rate_limit_exceeded",
        "requests"
      ),
      headers: { "retry-after": "20" }
    }
    : status === 503
    ? { status, body: openAiError("The engine is currently overloaded, please try again later", "server_error") }
    : status >= 500
    ? {
      status,
      body: openAiError("The server had an error while processing your request. Sorry about that!", "server_error")
    }
    : status === 401
    ? {
      status,
      body: openAiError(
        "Incorrect API key provided: sk-wrong. You can find your API key at " +
          "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key"
      )
    }
    : status === 403
    ? { status, body: openAiError("Project does not have access to model", "invalid_request_error", "model_not_found") }
    : { status, body: openAiError("Bad request", "invalid_request_error") }

/** `text` in pieces of 1 to 4 characters (whole code points), at least `min` pieces when it is long enough. */
export const pieces = (text: string, min = 1): Array<string> => {
  const chars = Array.from(text)
  const next = random(hash(text))
  const out: Array<string> = []
  let i = 0
  while (i < chars.length) {
    let size = 1 + Math.floor(next() * 4)
    if (out.length + 1 < min) size = Math.min(size, Math.max(1, chars.length - i - (min - out.length - 1)))
    out.push(chars.slice(i, i + size).join(""))
    i += size
  }
  return out
}

const tokensOf = (text: string) => Math.max(1, Math.ceil(text.length / 4))

const lastUserText = (body: ChatRequestBody): string => {
  const messages: ReadonlyArray<unknown> = Array.isArray(body?.messages) ? body.messages : []
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = record(messages[i])
    if (message.role === "user") {
      if (typeof message.content === "string") return message.content
      if (Array.isArray(message.content)) {
        return message.content.map((part) => (typeof record(part).text === "string" ? record(part).text : "")).join("")
      }
    }
  }
  return ""
}

const matches = (script: FakeChatScript, body: ChatRequestBody) =>
  typeof script.when === "function"
    ? script.when(body)
    : typeof script.when === "string"
    ? lastUserText(body).toLowerCase().includes(script.when.toLowerCase())
    : script.when.test(lastUserText(body))

/** The request body as OpenAI checks it: `undefined` when it is fine, else the 4xx. */
const validate = (body: unknown, models: ReadonlyArray<string>): Answer | undefined => {
  if (!isRecord(body)) {
    return invalid(
      "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library " +
        "correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)"
    )
  }
  const fields = record(body)
  if (typeof fields.model !== "string" || fields.model === "") {
    return invalid("you must provide a model parameter", "model")
  }
  if (!models.includes(fields.model)) {
    return {
      status: 404,
      body: openAiError(
        `The model \`${fields.model}\` does not exist or you do not have access to it.`,
        "invalid_request_error",
        "model_not_found"
      )
    }
  }
  if (!Array.isArray(fields.messages)) {
    return invalid("Missing required parameter: 'messages'.", "messages", "missing_required_parameter")
  }
  if (fields.messages.length === 0) return invalid("[] is too short - 'messages'", "messages", "empty_array")
  let open: Set<string> | undefined
  for (const [i, item] of fields.messages.entries()) {
    const message = record(item)
    const param = `messages[${i}]`
    if (!isRecord(item)) return invalid(`Invalid type for '${param}': expected an object.`, param, "invalid_type")
    if (typeof message.role !== "string" || !ROLES.includes(message.role)) {
      return invalid(
        `Invalid value: '${
          String(message.role)
        }'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `${param}.role`,
        "invalid_value"
      )
    }
    if (open !== undefined && open.size > 0 && message.role !== "tool") {
      return invalid(
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
          `The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
        `${param}.role`
      )
    }
    const content = message.content
    const textOrParts = typeof content === "string" || Array.isArray(content)
    switch (message.role) {
      case "system":
      case "developer":
      case "user":
        if (!textOrParts) {
          return invalid(
            `Invalid type for '${param}.content': expected one of a string or array of objects.`,
            `${param}.content`,
            "invalid_type"
          )
        }
        open = undefined
        break
      case "assistant": {
        const calls = message.tool_calls
        if (calls !== undefined && calls !== null) {
          if (!Array.isArray(calls) || calls.length === 0) {
            return invalid(
              `Invalid '${param}.tool_calls': empty array. Expected an array with minimum length 1.`,
              `${param}.tool_calls`,
              "empty_array"
            )
          }
          open = new Set()
          for (const [j, call] of calls.entries()) {
            const c = record(call)
            const fn = record(c.function)
            const at = `${param}.tool_calls[${j}]`
            if (typeof c.id !== "string" || c.id === "") {
              return invalid(`Missing required parameter: '${at}.id'.`, `${at}.id`, "missing_required_parameter")
            }
            if (c.type !== "function") {
              return invalid(
                `Invalid value: '${String(c.type)}'. Supported values are: 'function'.`,
                `${at}.type`,
                "invalid_value"
              )
            }
            if (typeof fn.name !== "string" || fn.name === "") {
              return invalid(`Missing required parameter: '${at}.function.name'.`, `${at}.function.name`)
            }
            if (typeof fn.arguments !== "string") {
              return invalid(
                `Invalid type for '${at}.function.arguments': expected a string.`,
                `${at}.function.arguments`,
                "invalid_type"
              )
            }
            open.add(c.id)
          }
          if (content !== null && content !== undefined && !textOrParts) {
            return invalid(
              `Invalid type for '${param}.content': expected one of a string or array of objects.`,
              `${param}.content`,
              "invalid_type"
            )
          }
        } else {
          if (!textOrParts) {
            return invalid(
              `Invalid value for '${param}.content': expected a string, got ${JSON.stringify(content ?? null)}.`,
              `${param}.content`,
              "invalid_type"
            )
          }
          open = undefined
        }
        break
      }
      case "tool": {
        if (typeof message.tool_call_id !== "string") {
          return invalid(
            `Missing required parameter: '${param}.tool_call_id'.`,
            `${param}.tool_call_id`,
            "missing_required_parameter"
          )
        }
        if (open === undefined || !open.has(message.tool_call_id)) {
          return invalid(
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with " +
              "'tool_calls'.",
            `${param}.role`
          )
        }
        open.delete(message.tool_call_id)
        if (!textOrParts) {
          return invalid(
            `Invalid type for '${param}.content': expected one of a string or array of objects.`,
            `${param}.content`,
            "invalid_type"
          )
        }
        break
      }
    }
  }
  if (open !== undefined && open.size > 0) {
    return invalid(
      `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. ` +
        `The following tool_call_ids did not have response messages: ${[...open].join(", ")}`,
      "messages"
    )
  }
  if (fields.tools !== undefined) {
    if (!Array.isArray(fields.tools)) {
      return invalid("Invalid type for 'tools': expected an array.", "tools", "invalid_type")
    }
    if (fields.tools.length === 0) {
      return invalid(
        "Invalid 'tools': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        "tools",
        "empty_array"
      )
    }
    for (const [i, item] of fields.tools.entries()) {
      const tool = record(item)
      const fn = record(tool.function)
      const at = `tools[${i}]`
      if (tool.type !== "function") {
        return invalid(
          `Invalid value: '${String(tool.type)}'. Supported values are: 'function'.`,
          `${at}.type`,
          "invalid_value"
        )
      }
      if (typeof fn.name !== "string" || !TOOL_NAME.test(fn.name)) {
        return invalid(
          `Invalid '${at}.function.name': string does not match pattern. Expected a string that matches the pattern ` +
            `'^[a-zA-Z0-9_-]+$'.`,
          `${at}.function.name`,
          "invalid_value"
        )
      }
      if (fn.description !== undefined && typeof fn.description !== "string") {
        return invalid(
          `Invalid type for '${at}.function.description': expected a string.`,
          `${at}.function.description`,
          "invalid_type"
        )
      }
      if (fn.parameters !== undefined) {
        const schema = record(fn.parameters)
        if (!isRecord(fn.parameters) || (schema.type !== undefined && schema.type !== "object")) {
          return invalid(
            `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${
              String(schema.type)
            }"'.`,
            `${at}.function.parameters`,
            "invalid_function_parameters"
          )
        }
      }
    }
  }
  if (fields.tool_choice !== undefined) {
    if (fields.tools === undefined) {
      return invalid(
        "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
        "tool_choice"
      )
    }
    if (!["none", "auto", "required"].includes(fields.tool_choice as string) && !isRecord(fields.tool_choice)) {
      return invalid(
        `Invalid value: '${String(fields.tool_choice)}'. Supported values are: 'none', 'auto', and 'required'.`,
        "tool_choice",
        "invalid_value"
      )
    }
  }
  if (fields.stream !== undefined && typeof fields.stream !== "boolean") {
    return invalid("Invalid type for 'stream': expected a boolean.", "stream", "invalid_type")
  }
  if (fields.stream_options !== undefined && fields.stream_options !== null) {
    if (fields.stream !== true) {
      return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", "stream_options")
    }
    const include = record(fields.stream_options).include_usage
    if (include !== undefined && typeof include !== "boolean") {
      return invalid(
        "Invalid type for 'stream_options.include_usage': expected a boolean.",
        "stream_options.include_usage",
        "invalid_type"
      )
    }
  }
  if (fields.temperature !== undefined) {
    const t = fields.temperature
    if (typeof t !== "number") {
      return invalid("Invalid type for 'temperature': expected a decimal.", "temperature", "invalid_type")
    }
    if (t < 0 || t > 2) {
      return invalid(
        `Invalid 'temperature': decimal ${t < 0 ? "below minimum" : "above maximum"} value. Expected a value ${
          t < 0 ? ">= 0" : "<= 2"
        }, but got ${t} instead.`,
        "temperature",
        "decimal_out_of_range"
      )
    }
  }
  return undefined
}

interface StreamState {
  closed: boolean
  /** An event stream was started (its headers sent). */
  streaming: boolean
  /** The fake itself dropped the connection (a `Cut` fault): not the client leaving. */
  cutByServer: boolean
  sleeper: Fiber.RuntimeFiber<void> | undefined
}

/** Starts the fake on 127.0.0.1 and a free port; it stops when the scope closes. */
export const makeFakeOpenAiChat = (
  options: FakeOpenAiChatOptions = {}
): Effect.Effect<FakeOpenAiChatServer, never, Scope.Scope> =>
  Effect.gen(function*() {
    const runtime = yield* Effect.runtime<never>()
    const models = options.models ?? [MODEL_DEFAULT]
    const dialect = options.dialect ?? "openai"
    const apiKey = options.apiKey
    const defaultReply = options.defaultReply ?? { text: "I'm sorry, I don't know." }
    const recorded: Array<RecordedChatRequest> = []
    const queued: Array<FakeChatReply> = []
    const faults: Array<FakeChatFault> = []
    const waiters = makeWaiters("FakeOpenAiChat")
    const sleepers = new Set<Fiber.RuntimeFiber<void>>()
    let firstTokenDelay = options.firstTokenDelayMillis ?? 0
    let chunkDelay = options.chunkDelayMillis ?? 0
    let endDelay = options.endDelayMillis ?? 0
    let aborted = 0
    let completed = 0

    /** Sleeps on the fake's Clock; ends early when the stream closes or the fake stops. */
    const sleep = (millis: number, state: StreamState) =>
      new Promise<void>((resolve) => {
        if (millis <= 0 || state.closed) return resolve()
        const fiber = Runtime.runFork(runtime)(Effect.sleep(millis))
        sleepers.add(fiber)
        state.sleeper = fiber
        fiber.addObserver(() => {
          sleepers.delete(fiber)
          if (state.sleeper === fiber) state.sleeper = undefined
          resolve()
        })
      })

    const nowSeconds = () => Math.floor(Runtime.runSync(runtime)(Clock.currentTimeMillis) / 1000)

    const replyFor = (body: ChatRequestBody): FakeChatReply => {
      const next = queued.shift()
      if (next !== undefined) return next
      const script = (options.scripts ?? []).find((s) => matches(s, body))
      if (script === undefined) return defaultReply
      return typeof script.reply === "function" ? script.reply(body) : script.reply ?? defaultReply
    }

    const callsOf = (reply: FakeChatReply, seed: string) =>
      (reply.toolCalls ?? []).map((call, i) => ({
        id: call.id ?? `call_${hash(`${seed}:${i}:${call.name}`).toString(36)}${i}`,
        name: call.name,
        arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments)
      }))

    const usageOf = (reply: FakeChatReply, body: ChatRequestBody) => {
      if (reply.usage === false) return undefined
      const prompt = reply.usage?.prompt_tokens ?? tokensOf(JSON.stringify(body?.messages ?? []))
      const completion = reply.usage?.completion_tokens ??
        tokensOf((reply.text ?? "") + (reply.toolCalls ?? []).map((c) => JSON.stringify(c)).join(""))
      return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion }
    }

    /** The SSE events (each `data: …\n\n`) of a streamed reply. */
    const eventsFor = (reply: FakeChatReply, body: ChatRequestBody = {}): Array<string> => {
      const model = typeof body?.model === "string" ? body.model : models[0]
      const seed = JSON.stringify(body?.messages ?? null)
      const id = `chatcmpl-${hash(`${recorded.length}:${seed}`).toString(36)}`
      const created = nowSeconds()
      const includeUsage = record(body?.stream_options).include_usage === true
      const chunk = (delta: unknown, finish: string | null = null) => ({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        system_fingerprint: "fp_44709d6fcb",
        choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
        ...(includeUsage ? { usage: null } : {})
      })
      const text = reply.text ?? ""
      const calls = callsOf(reply, seed)
      const chunks: Array<unknown> = [chunk({ role: "assistant", content: text === "" ? null : "" })]
      for (const piece of pieces(text)) chunks.push(chunk({ content: piece }))
      calls.forEach((call, i) => {
        const index = dialect === "ollama" ? 0 : i
        chunks.push(
          chunk({
            tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
          })
        )
        for (const piece of pieces(call.arguments, 2)) {
          chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }))
        }
      })
      chunks.push(chunk({}, reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")))
      const usage = usageOf(reply, body)
      if (includeUsage && usage !== undefined) {
        chunks.push({
          id,
          object: "chat.completion.chunk",
          created,
          model,
          system_fingerprint: "fp_44709d6fcb",
          choices: dialect === "vllm" ? null : [],
          usage
        })
      }
      return [...chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`), "data: [DONE]\n\n"]
    }

    const completionFor = (reply: FakeChatReply, body: ChatRequestBody) => {
      const calls = callsOf(reply, JSON.stringify(body?.messages ?? null))
      const usage = usageOf(reply, body)
      return {
        id: `chatcmpl-${hash(`${recorded.length}`).toString(36)}`,
        object: "chat.completion",
        created: nowSeconds(),
        model: body.model,
        system_fingerprint: "fp_44709d6fcb",
        choices: [{
          index: 0,
          message: {
            role: "assistant",
            content: reply.text === undefined || reply.text === "" ? null : reply.text,
            refusal: null,
            ...(calls.length === 0 ? {} : {
              tool_calls: calls.map((c) => ({
                id: c.id,
                type: "function",
                function: { name: c.name, arguments: c.arguments }
              }))
            })
          },
          logprobs: null,
          finish_reason: reply.finishReason ?? (calls.length > 0 ? "tool_calls" : "stop")
        }],
        ...(usage === undefined ? {} : { usage })
      }
    }

    const respond = (response: http.ServerResponse, answer: Answer) => {
      // a string is sent as it is (a proxy's HTML page), anything else as JSON
      const raw = typeof answer.body === "string"
      const text = raw ? answer.body as string : JSON.stringify(answer.body)
      response.writeHead(answer.status, {
        "content-type": raw ? "text/html; charset=utf-8" : "application/json",
        "content-length": Buffer.byteLength(text),
        "x-request-id": `req_${hash(`${recorded.length}:${text.length}`).toString(16)}`,
        ...answer.headers
      })
      response.end(text)
    }

    const write = (response: http.ServerResponse, text: string) =>
      new Promise<void>((resolve) => {
        if (response.destroyed) return resolve()
        response.write(text, () => resolve())
      })

    const streamReply = async (
      response: http.ServerResponse,
      state: StreamState,
      events: ReadonlyArray<string>,
      fault: FakeChatFault | undefined
    ) => {
      state.streaming = true
      response.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        "x-request-id": `req_${hash(`${recorded.length}`).toString(16)}`
      })
      response.flushHeaders()
      for (let i = 0; i <= events.length; i++) {
        if (fault?._tag === "Lines" && i === (fault.afterEvents ?? 1)) {
          await write(response, fault.lines.map((l) => `${l}\n`).join(""))
        }
        if (fault?._tag === "Stall" && i === fault.afterEvents) return
        if (fault?._tag === "Cut" && i === fault.afterEvents) {
          if (fault.how === "reset") {
            state.cutByServer = true
            response.socket?.destroy()
          } else response.end()
          return
        }
        if (i === events.length) break
        // the first text delta goes with the role chunk
        const delay = i === 0 ? firstTokenDelay : i === 1 ? 0 : chunkDelay
        await sleep(delay, state)
        if (state.closed) return
        await write(response, events[i])
      }
      await sleep(endDelay, state)
      if (state.closed) return
      response.end()
      completed++
    }

    const handle = async (incoming: http.IncomingMessage, response: http.ServerResponse) => {
      const state: StreamState = { closed: false, streaming: false, cutByServer: false, sleeper: undefined }
      response.on("close", () => {
        state.closed = true
        state.sleeper?.unsafeInterruptAsFork(FiberId.none)
        if (state.streaming && !response.writableFinished && !state.cutByServer) {
          aborted++
          waiters.wake()
        }
      })
      const request: RecordedChatRequest = {
        ...await readJsonRequest(incoming),
        remotePort: incoming.socket.remotePort
      }
      recorded.push(request)
      // a queued fault, else (nothing queued) the fault of the script that would answer
      const fault = faults.shift() ??
        (queued.length === 0 && request.body !== undefined
          ? (options.scripts ?? []).find((s) => matches(s, request.body))?.fault
          : undefined)
      const answer = route(request)
      if (fault?._tag === "Hang") return waiters.wake()
      if (fault?._tag === "Reset") {
        waiters.wake()
        return void incoming.socket.destroy()
      }
      if (fault?._tag === "Respond") {
        waiters.wake()
        const model = typeof request.body?.model === "string" ? request.body.model : models[0]
        const base = defaultFault(fault.status, model)
        return respond(response, {
          status: fault.status,
          body: fault.body ?? base.body,
          headers: { ...base.headers, ...fault.headers }
        })
      }
      if (fault?._tag === "Body") {
        waiters.wake()
        const contentType = fault.contentType ?? "text/event-stream; charset=utf-8"
        state.streaming = contentType.startsWith("text/event-stream")
        response.writeHead(fault.status ?? 200, { "content-type": contentType })
        for (const piece of typeof fault.body === "string" ? [fault.body] : fault.body) await write(response, piece)
        if (fault.hold !== true) response.end()
        return
      }
      if (answer !== undefined) {
        waiters.wake()
        return respond(response, answer)
      }
      const reply = replyFor(request.body)
      if (request.body.stream !== true) {
        waiters.wake()
        return respond(response, { status: 200, body: completionFor(reply, request.body) })
      }
      const streaming = streamReply(response, state, eventsFor(reply, request.body), fault)
      // the first delay is registered (on the fake's clock) before anyone hears of the request
      waiters.wake()
      await streaming
    }

    /** A refusal for the request, or `undefined` to answer it. */
    const route = (request: RecordedChatRequest): Answer | undefined => {
      const pathname = new URL(request.path, "http://localhost").pathname
      if (pathname !== "/v1/chat/completions" && pathname !== "/chat/completions") {
        return {
          status: 404,
          body: openAiError(`Invalid URL (${request.method} ${pathname})`, "invalid_request_error")
        }
      }
      if (apiKey !== undefined && request.headers.authorization !== `Bearer ${apiKey}`) {
        return {
          status: 401,
          body: openAiError(
            request.headers.authorization === undefined
              ? "You didn't provide an API key. You need to provide your API key in an Authorization header using " +
                "Bearer auth (i.e. Authorization: Bearer YOUR_KEY)."
              : "Incorrect API key provided. You can find your API key at " +
                "https://platform.openai.com/account/api-keys.",
            "invalid_request_error",
            request.headers.authorization === undefined ? null : "invalid_api_key"
          )
        }
      }
      if (request.method !== "POST") {
        return {
          status: 405,
          body: openAiError(`Invalid method for URL (${request.method} ${pathname})`, "invalid_request_error")
        }
      }
      return validate(request.body, models)
    }

    const port = yield* listen(
      httpServer(
        handle,
        (response, error) => respond(response, { status: 500, body: openAiError(String(error), "server_error") })
      ),
      () => {
        for (const fiber of sleepers) fiber.unsafeInterruptAsFork(FiberId.none)
        sleepers.clear()
      }
    )

    const fake: FakeOpenAiChatServer = {
      url: `http://127.0.0.1:${port}/v1`,
      apiKey,
      requests: () => recorded.slice(),
      enqueue: (...replies) => void queued.push(...replies),
      fault: (fault) => void faults.push(fault),
      setDelays: (delays) => {
        if (delays.firstTokenMillis !== undefined) firstTokenDelay = delays.firstTokenMillis
        if (delays.chunkMillis !== undefined) chunkDelay = delays.chunkMillis
        if (delays.endMillis !== undefined) endDelay = delays.endMillis
      },
      abortedStreams: () => aborted,
      completedStreams: () => completed,
      awaitRequests: (n, millis) =>
        waiters.until(`${n} request(s)`, () => recorded.length >= n, millis, () => `saw ${recorded.length}`),
      awaitAborted: (n, millis) =>
        waiters.until(`${n} aborted stream(s)`, () => aborted >= n, millis, () => `saw ${aborted}`),
      eventsFor: (reply, body = { model: models[0], messages: [], stream: true }) => eventsFor(reply, body)
    }
    return fake
  })

/** The fake as a service, for `it.layer` and `Layer.provide`. */
export class FakeOpenAiChat extends Context.Tag("Testing/FakeOpenAiChat")<FakeOpenAiChat, FakeOpenAiChatServer>() {
  static readonly layer = (options: FakeOpenAiChatOptions = {}) =>
    Layer.scoped(FakeOpenAiChat, makeFakeOpenAiChat(options))
}
