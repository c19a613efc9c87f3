import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { assert, describe, it, layer } from "@effect/vitest"
import type { Message } from "@voiceagent/domain/Conversation"
import {
  type FakeChatFault,
  type FakeOpenAiChatOptions,
  type FakeOpenAiChatServer,
  makeFakeOpenAiChat,
  pieces
} from "@voiceagent/runner/Testing/FakeOpenAiChat"
import {
  type LanguageModelError,
  type LanguageModelProvider,
  LlmChunk,
  type LlmRequest,
  type ToolSpec
} from "@voiceagent/runner/Voice/LanguageModel"
import {
  chatRequestBody,
  ChatStreamAccumulator,
  completionChunks,
  make,
  type OpenAiChatOptions,
  SseDecoder,
  type SseEvent
} from "@voiceagent/runner/Voice/OpenAiChat"
import { Chunk, Effect, Exit, Fiber, Option, Queue, Redacted, Stream, TestClock } from "effect"

// ---------------------------------------------------------------------------
// Golden chunks, in the shapes OpenAI documents
// ---------------------------------------------------------------------------

/** The chunk object as the API reference shows it (chat/streaming, `chat.completion.chunk`). */
const docChunk = (delta: unknown, finish: string | null = null, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-4o-mini",
    system_fingerprint: "fp_44709d6fcb",
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra
  })

const sse = (...data: ReadonlyArray<string>) => data.map((d) => `data: ${d}\n\n`).join("")

/** The API reference's streamed text example. */
const GOLDEN_TEXT = sse(
  docChunk({ role: "assistant", content: "" }),
  docChunk({ content: "Hello" }),
  docChunk({ content: "! How" }),
  docChunk({ content: " can I help?" }),
  docChunk({}, "stop"),
  "[DONE]"
)

/**
 * The function-calling guide's streamed `delta.tool_calls`, as it prints them (later fragments with explicit nulls).
 */
const GOLDEN_TOOL_FRAGMENTS: ReadonlyArray<unknown> = [
  { index: 0, id: "call_DdmO9pD3xa9XTPNJ32zg2hcA", function: { arguments: "", name: "get_weather" }, type: "function" },
  ...["{\"", "location", "\":\"", "Paris", ",", " France", "\"}"].map((args) => ({
    index: 0,
    id: null,
    function: { arguments: args, name: null },
    type: null
  }))
]
const GOLDEN_TOOL = sse(
  docChunk({ role: "assistant", content: null }),
  ...GOLDEN_TOOL_FRAGMENTS.map((fragment) => docChunk({ tool_calls: [fragment] })),
  docChunk({}, "tool_calls"),
  "[DONE]"
)

/**
 * The usage chunk `stream_options.include_usage` adds before `[DONE]`: `choices: []`; the others carry `usage: null`.
 */
const GOLDEN_USAGE = sse(
  docChunk({ role: "assistant", content: "" }, null, { usage: null }),
  docChunk({ content: "Hi there." }, null, { usage: null }),
  docChunk({}, "stop", { usage: null }),
  JSON.stringify({
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "gpt-4o-mini",
    system_fingerprint: "fp_44709d6fcb",
    choices: [],
    usage: {
      prompt_tokens: 10,
      completion_tokens: 5,
      total_tokens: 15,
      prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
      completion_tokens_details: {
        reasoning_tokens: 0,
        audio_tokens: 0,
        accepted_prediction_tokens: 0,
        rejected_prediction_tokens: 0
      }
    }
  }),
  "[DONE]"
)

/** Two calls in parallel, their fragments interleaved: accumulated by index. */
const GOLDEN_PARALLEL = sse(
  docChunk({ role: "assistant", content: "" }),
  docChunk({ content: "Checking both." }),
  docChunk({
    tool_calls: [{ index: 0, id: "call_a", type: "function", function: { name: "get_weather", arguments: "" } }]
  }),
  docChunk({
    tool_calls: [{ index: 1, id: "call_b", type: "function", function: { name: "get_weather", arguments: "" } }]
  }),
  docChunk({ tool_calls: [{ index: 0, function: { arguments: "{\"location\":" } }] }),
  docChunk({ tool_calls: [{ index: 1, function: { arguments: "{\"location\":" } }] }),
  docChunk({
    tool_calls: [{ index: 1, function: { arguments: "\"Berlin\"}" } }, {
      index: 0,
      function: { arguments: "\"Paris\"}" }
    }]
  }),
  docChunk({}, "tool_calls"),
  "[DONE]"
)

/** vLLM: the usage chunk with `choices: null`. */
const GOLDEN_VLLM = sse(
  docChunk({ role: "assistant", content: "" }),
  docChunk({ content: "Yes." }),
  docChunk({}, "stop"),
  JSON.stringify({
    id: "chatcmpl-123",
    object: "chat.completion.chunk",
    created: 1694268190,
    model: "m",
    choices: null,
    usage: { prompt_tokens: 7, completion_tokens: 2, total_tokens: 9 }
  }),
  "[DONE]"
)

/** Ollama-compatible: parallel calls all at index 0, each with its own id, whole in one fragment. */
const GOLDEN_OLLAMA = sse(
  docChunk({ role: "assistant", content: "" }),
  docChunk({
    tool_calls: [{
      index: 0,
      id: "call_x1",
      type: "function",
      function: { name: "get_weather", arguments: "{\"location\":\"Paris\"}" }
    }]
  }),
  docChunk({
    tool_calls: [{
      index: 0,
      id: "call_x2",
      type: "function",
      function: { name: "get_time", arguments: "{\"zone\":\"CET\"}" }
    }]
  }),
  docChunk({}, "tool_calls"),
  "[DONE]"
)

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

const API_KEY = "sk-test-chat-0123456789"
const SYSTEM = "You are Ava, the assistant of Acme Mobile. Answer briefly."
const AGENT = {
  tenantId: "00000000-0000-4000-8000-000000000001",
  knowledgeBaseIds: [],
  metadata: {},
  greeting: "Hi, this is Ava."
}
const WEATHER: ToolSpec = {
  name: "get_weather",
  description: "Current weather for a city",
  parameters: {
    type: "object",
    properties: { location: { type: "string" } },
    required: ["location"],
    additionalProperties: false
  }
}
const END_CALL: ToolSpec = {
  name: "end_call",
  description: "End the call",
  parameters: { type: "object", properties: {} }
}

const requestOf = (messages: ReadonlyArray<Message>, overrides: Partial<LlmRequest> = {}): LlmRequest => ({
  system: SYSTEM,
  messages,
  tools: [],
  agent: AGENT,
  ...overrides
})

/** What the pure decoder and accumulator make of a whole body, fed in the given pieces. */
const parseBody = (pieces: ReadonlyArray<string>) => {
  const decoder = new SseDecoder()
  const accumulator = new ChatStreamAccumulator()
  const out: Array<LlmChunk> = []
  let done = false
  const take = (events: ReadonlyArray<SseEvent>) => {
    for (const event of events) {
      if (done) return
      if (event.data === "[DONE]") {
        done = true
        return
      }
      const result = accumulator.push(JSON.parse(event.data))
      if (result.error !== undefined) throw new Error(result.error.message)
      out.push(...result.out)
    }
  }
  for (const piece of pieces) take(decoder.feed(piece))
  take(decoder.end())
  const finished = accumulator.finish()
  if ("error" in finished) throw new Error(finished.error)
  return [...out, ...finished.out]
}

const textOf = (chunks: ReadonlyArray<LlmChunk>) => chunks.flatMap((c) => (c._tag === "Text" ? [c.text] : [])).join("")
const callsOf = (chunks: ReadonlyArray<LlmChunk>) => chunks.flatMap((c) => (c._tag === "ToolCalls" ? c.calls : []))
const doneOf = (chunks: ReadonlyArray<LlmChunk>) => {
  const last = chunks.at(-1)
  assert.strictEqual(last?._tag, "Done")
  return last as Extract<LlmChunk, { _tag: "Done" }>
}

const providerFor = (fake: FakeOpenAiChatServer, overrides: Partial<OpenAiChatOptions> = {}) =>
  make({ baseUrl: fake.url, apiKey: fake.apiKey === undefined ? undefined : Redacted.make(fake.apiKey), ...overrides })

const collect = (provider: LanguageModelProvider, request: LlmRequest) =>
  Stream.runCollect(provider.stream(request)).pipe(Effect.map(Chunk.toArray))

const failure = (provider: LanguageModelProvider, request: LlmRequest) => Effect.flip(collect(provider, request))

const withFake = (options: FakeOpenAiChatOptions = {}) => makeFakeOpenAiChat({ apiKey: API_KEY, ...options })

const hello = requestOf([{ role: "user", content: "Hello?" }])

/** Seeded splits of a string into random pieces (1–7 characters). */
const randomSplits = (text: string, seed: number) => {
  const out: Array<string> = []
  let i = 0
  let s = seed
  while (i < text.length) {
    s = (s * 1103515245 + 12345) % 2147483648
    const size = 1 + (s % 7)
    out.push(text.slice(i, i + size))
    i += size
  }
  return out
}

// ---------------------------------------------------------------------------
// The request
// ---------------------------------------------------------------------------

describe("the request body", () => {
  it("maps the conversation: instructions first, tool calls and results, an interrupted turn as what was heard", () => {
    const messages: ReadonlyArray<Message> = [
      { role: "user", content: "What's the weather in Paris?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "call_1", name: "get_weather", arguments: "{\"location\":\"Paris\"}" }]
      },
      { role: "tool", toolCallId: "call_1", content: "18 °C, sunny" },
      { role: "assistant", content: "It's 18 degrees and sunny in Paris, so", interrupted: true },
      { role: "user", content: "And tomorrow?" },
      { role: "assistant", content: "Let me look.", toolCalls: [{ id: "call_2", name: "get_weather", arguments: "" }] },
      { role: "tool", toolCallId: "call_2", content: "20 °C" },
      { role: "assistant", content: "", interrupted: true }
    ]
    const body = chatRequestBody(requestOf(messages, { tools: [WEATHER, END_CALL], temperature: 0.3 }), {
      model: "gpt-4o-mini",
      includeUsage: true
    })
    assert.deepStrictEqual(body, {
      model: "gpt-4o-mini",
      messages: [
        { role: "system", content: SYSTEM },
        { role: "user", content: "What's the weather in Paris?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: "{\"location\":\"Paris\"}" }
          }]
        },
        { role: "tool", tool_call_id: "call_1", content: "18 °C, sunny" },
        // only the heard words; the flag is not sent
        { role: "assistant", content: "It's 18 degrees and sunny in Paris, so" },
        { role: "user", content: "And tomorrow?" },
        {
          role: "assistant",
          content: "Let me look.",
          tool_calls: [{ id: "call_2", type: "function", function: { name: "get_weather", arguments: "{}" } }]
        },
        { role: "tool", tool_call_id: "call_2", content: "20 °C" }
        // nothing heard: left out
      ],
      tools: [
        {
          type: "function",
          function: { name: "get_weather", description: WEATHER.description, parameters: WEATHER.parameters }
        },
        {
          type: "function",
          function: { name: "end_call", description: "End the call", parameters: END_CALL.parameters }
        }
      ],
      tool_choice: "auto",
      stream: true,
      stream_options: { include_usage: true },
      temperature: 0.3
    })
  })

  it(
    "leaves out what is not there: tools, tool_choice, empty instructions, usage, temperature; the request's model " +
      "wins",
    () => {
      assert.deepStrictEqual(
        chatRequestBody(requestOf([{ role: "user", content: "hi" }], { system: "  " }), {
          model: "m1",
          includeUsage: false
        }),
        {
          model: "m1",
          messages: [{ role: "user", content: "hi" }],
          stream: true
        }
      )
      const body = chatRequestBody(requestOf([{ role: "user", content: "hi" }], { model: "m2" }), {
        model: "m1",
        includeUsage: true,
        temperature: 0.5
      })
      assert.strictEqual(body.model, "m2")
      assert.strictEqual(body.temperature, 0.5)
    }
  )
})

// ---------------------------------------------------------------------------
// Server-sent events
// ---------------------------------------------------------------------------

describe("the SSE decoder", () => {
  const eventsOf = (pieces: ReadonlyArray<string>) => {
    const decoder = new SseDecoder()
    return [...pieces.flatMap((p) => decoder.feed(p)), ...decoder.end()]
  }

  it("finds the same events however the body is split, with LF, CRLF or CR line ends", () => {
    const whole = eventsOf([GOLDEN_TOOL])
    assert.strictEqual(whole.length, GOLDEN_TOOL_FRAGMENTS.length + 3)
    assert.strictEqual(whole.at(-1)?.data, "[DONE]")
    assert.deepStrictEqual(eventsOf(Array.from(GOLDEN_TOOL)), whole)
    for (const seed of [1, 2, 3, 4, 5]) assert.deepStrictEqual(eventsOf(randomSplits(GOLDEN_TOOL, seed)), whole)
    for (const eol of ["\r\n", "\r"]) {
      const body = GOLDEN_TOOL.replaceAll("\n", eol)
      assert.deepStrictEqual(eventsOf([body]), whole)
      assert.deepStrictEqual(eventsOf(Array.from(body)), whole, JSON.stringify(eol))
    }
  })

  it("skips comments, ids, retries and unknown fields; joins data lines; keeps the event name", () => {
    const body = ": keep-alive\n\n" +
      ": OPENROUTER PROCESSING\n\n" +
      "id: 7\nretry: 1000\nnonsense without a colon\nfoo: bar\ndata: {\"a\":\n" +
      "data:1}\n\n" +
      "event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n" +
      "data: [DONE]\n"
    assert.deepStrictEqual(eventsOf([body]), [
      { event: "message", data: "{\"a\":\n1}" },
      { event: "error", data: "{\"error\":{\"message\":\"boom\"}}" },
      // the last event is dispatched at the end of the body even without its blank line
      { event: "message", data: "[DONE]" }
    ])
    // a line cut off by the end of the body is dropped
    assert.deepStrictEqual(eventsOf(["data: {\"choices\":[]}\n\ndata: {\"choi"]), [{
      event: "message",
      data: "{\"choices\":[]}"
    }])
  })
})

// ---------------------------------------------------------------------------
// Golden chunks
// ---------------------------------------------------------------------------

describe("golden chunks from the docs", () => {
  it("text: deltas as they come, then Done(stop)", () => {
    const chunks = parseBody([GOLDEN_TEXT])
    assert.deepStrictEqual(chunks.map((c) => c._tag), ["Text", "Text", "Text", "Done"])
    assert.deepStrictEqual(chunks.slice(0, 3).map((c) => (c as { text: string }).text), [
      "Hello",
      "! How",
      " can I help?"
    ])
    assert.deepStrictEqual({ ...doneOf(chunks) }, {
      _tag: "Done",
      finishReason: "stop",
      promptTokens: undefined,
      completionTokens: undefined
    })
  })

  it("a tool call over fragments (the function-calling guide's, nulls included) is one complete call", () => {
    for (const split of [[GOLDEN_TOOL], Array.from(GOLDEN_TOOL), randomSplits(GOLDEN_TOOL, 9)]) {
      const chunks = parseBody(split)
      assert.deepStrictEqual(chunks.map((c) => c._tag), ["ToolCalls", "Done"])
      assert.deepStrictEqual(callsOf(chunks), [{
        id: "call_DdmO9pD3xa9XTPNJ32zg2hcA",
        name: "get_weather",
        arguments: "{\"location\":\"Paris, France\"}"
      }])
      assert.strictEqual(doneOf(chunks).finishReason, "tool_calls")
    }
  })

  it("parallel calls, fragments interleaved, are accumulated by index; the text before them streams first", () => {
    const chunks = parseBody([GOLDEN_PARALLEL])
    assert.deepStrictEqual(chunks.map((c) => c._tag), ["Text", "ToolCalls", "Done"])
    assert.strictEqual(textOf(chunks), "Checking both.")
    assert.deepStrictEqual(callsOf(chunks), [
      { id: "call_a", name: "get_weather", arguments: "{\"location\":\"Paris\"}" },
      { id: "call_b", name: "get_weather", arguments: "{\"location\":\"Berlin\"}" }
    ])
  })

  it("usage: the choices:[] chunk gives the token counts; usage:null elsewhere is ignored", () => {
    const chunks = parseBody([GOLDEN_USAGE])
    assert.strictEqual(textOf(chunks), "Hi there.")
    assert.deepStrictEqual({ ...doneOf(chunks) }, {
      _tag: "Done",
      finishReason: "stop",
      promptTokens: 10,
      completionTokens: 5
    })
  })

  it("vLLM's choices:null and Ollama's reused index 0 with new ids", () => {
    const vllm = parseBody([GOLDEN_VLLM])
    assert.strictEqual(textOf(vllm), "Yes.")
    assert.deepStrictEqual([doneOf(vllm).promptTokens, doneOf(vllm).completionTokens], [7, 2])
    const ollama = parseBody([GOLDEN_OLLAMA])
    assert.deepStrictEqual(callsOf(ollama), [
      { id: "call_x1", name: "get_weather", arguments: "{\"location\":\"Paris\"}" },
      { id: "call_x2", name: "get_time", arguments: "{\"zone\":\"CET\"}" }
    ])
  })

  it(
    "odd but valid: no finish reason before [DONE], no index, no id, no arguments, a repeated name, an id on every " +
      "fragment",
    () => {
      const chunks = parseBody([
        sse(
          JSON.stringify({ choices: [{ delta: { tool_calls: [{ function: { name: "end_call" } }] } }] }),
          JSON.stringify({
            choices: [{
              delta: { tool_calls: [{ index: 1, id: "c9", function: { name: "lookup", arguments: "{\"q\":" } }] }
            }]
          }),
          JSON.stringify({
            choices: [{
              delta: { tool_calls: [{ index: 1, id: "c9", function: { name: "lookup", arguments: "1}" } }] }
            }]
          }),
          "[DONE]"
        )
      ])
      assert.deepStrictEqual(callsOf(chunks), [
        { id: "call_0", name: "end_call", arguments: "{}" },
        { id: "c9", name: "lookup", arguments: "{\"q\":1}" }
      ])
      assert.strictEqual(doneOf(chunks).finishReason, "tool_calls")
      assert.throws(
        () =>
          parseBody([
            sse(
              JSON.stringify({
                choices: [{ delta: { tool_calls: [{ index: 0, id: "x", function: { arguments: "{}" } }] } }]
              }),
              "[DONE]"
            )
          ]),
        /without a name/
      )
      // another choice than the first (n > 1) is not this answer
      assert.strictEqual(
        textOf(
          parseBody([
            sse(
              JSON.stringify({
                choices: [{ index: 1, delta: { content: "other" } }, { index: 0, delta: { content: "mine" } }]
              }),
              "[DONE]"
            )
          ])
        ),
        "mine"
      )
    }
  )

  it("a whole chat.completion body (a server that ignored stream) gives the same chunks", () => {
    const out = completionChunks({
      id: "chatcmpl-1",
      object: "chat.completion",
      choices: [{
        index: 0,
        message: {
          role: "assistant",
          content: "One moment.",
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "get_weather", arguments: "{\"location\":\"Oslo\"}" }
          }]
        },
        finish_reason: "tool_calls"
      }],
      usage: { prompt_tokens: 20, completion_tokens: 9, total_tokens: 29 }
    })
    assert.isTrue("out" in out)
    const chunks = "out" in out ? out.out : []
    assert.deepStrictEqual(chunks.map((c) => c._tag), ["Text", "ToolCalls", "Done"])
    assert.deepStrictEqual([doneOf(chunks).finishReason, doneOf(chunks).promptTokens], ["tool_calls", 20])
    assert.deepStrictEqual(completionChunks({ object: "chat.completion" }), {
      error: "sent a completion without choices"
    })
  })
})

// ---------------------------------------------------------------------------
// The fake keeps to the documented shapes
// ---------------------------------------------------------------------------

const shapeOf = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.length === 0 ? [] : [shapeOf(value[0])]
    : typeof value === "object" && value !== null
    ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, shapeOf((value as Record<string, unknown>)[k])]))
    : value === null
    ? null
    : typeof value

describe("the fake against the golden chunks", () => {
  it.scoped("sends chunks of the documented shape: role, text, tool fragments, finish, usage, [DONE]", () =>
    Effect.gen(function*() {
      const fake = yield* makeFakeOpenAiChat()
      const body = { model: "gpt-4o-mini", messages: [{ role: "user", content: "hi" }], stream: true }
      const plain = fake.eventsFor({ text: "Hello! How can I help?" }, body).map((e) => e.slice("data: ".length).trim())
      const golden = GOLDEN_TEXT.split("\n\n").filter((e) => e !== "").map((e) => e.slice("data: ".length))
      const goldenShapes = golden.slice(0, -1).map((e) => shapeOf(JSON.parse(e)))
      // role chunk, a text chunk, the finish chunk: the same keys and types as the API reference's
      assert.deepStrictEqual(shapeOf(JSON.parse(plain[0])), goldenShapes[0])
      assert.deepStrictEqual(shapeOf(JSON.parse(plain[1])), goldenShapes[1])
      assert.deepStrictEqual(shapeOf(JSON.parse(plain.at(-2)!)), goldenShapes.at(-1))
      assert.strictEqual(plain.at(-1), "[DONE]")
      // text deltas of 1–4 characters that add up to the text
      const deltas = plain.slice(1, -2).map((e) => JSON.parse(e).choices[0].delta.content as string)
      assert.strictEqual(deltas.join(""), "Hello! How can I help?")
      for (const d of deltas) assert.isTrue(d.length >= 1 && d.length <= 4, d)

      // tool calls: a first fragment with id, type and name, then at least two argument pieces
      const tools = fake.eventsFor(
        {
          toolCalls: [{ name: "get_weather", arguments: { location: "Paris, France" } }, {
            name: "end_call",
            arguments: "{}"
          }]
        },
        { ...body, stream_options: { include_usage: true } }
      ).map((e) => e.slice("data: ".length).trim())
      const fragments = tools.slice(1, -3).map((e) => JSON.parse(e).choices[0].delta.tool_calls[0])
      const wire = (f: Record<string, unknown>) => Object.fromEntries(Object.entries(f).filter(([, v]) => v !== null))
      const goldenFirst = GOLDEN_TOOL_FRAGMENTS[0] as Record<string, unknown>
      assert.deepStrictEqual(shapeOf(fragments[0]), shapeOf(goldenFirst))
      // later fragments: the golden ones without the nulls the SDK prints (the wire leaves them out)
      assert.deepStrictEqual(
        shapeOf(fragments[1]),
        shapeOf({ ...wire(GOLDEN_TOOL_FRAGMENTS[1] as Record<string, unknown>), function: { arguments: "" } })
      )
      const byIndex = new Map<number, Array<unknown>>()
      for (const f of fragments) byIndex.set(f.index, [...(byIndex.get(f.index) ?? []), f])
      assert.deepStrictEqual([...byIndex.keys()], [0, 1])
      for (const group of byIndex.values()) assert.isAtLeast(group.length, 3)
      // the usage chunk and usage:null on the others, as with include_usage
      const goldenUsage = GOLDEN_USAGE.split("\n\n").filter((e) => e !== "").map((e) =>
        JSON.parse(e.slice(6) === "[DONE]" ? "null" : e.slice(6))
      )
      const usage = JSON.parse(tools.at(-2)!)
      assert.deepStrictEqual(Object.keys(usage).sort(), Object.keys(goldenUsage[3]).sort())
      assert.deepStrictEqual(usage.choices, [])
      assert.deepStrictEqual(Object.keys(usage.usage).sort(), ["completion_tokens", "prompt_tokens", "total_tokens"])
      assert.isNull(JSON.parse(tools[0]).usage)
      assert.strictEqual(JSON.parse(tools.at(-3)!).choices[0].finish_reason, "tool_calls")

      // and the adapter's own decoding of the fake's stream gives back the reply
      const parsed = parseBody(tools.map((e) => `data: ${e}\n\n`))
      assert.deepStrictEqual(callsOf(parsed).map((c) => [c.name, JSON.parse(c.arguments)]), [["get_weather", {
        location: "Paris, France"
      }], ["end_call", {}]])
    }))

  it("splits text into 1–4 character pieces and arguments into at least two", () => {
    for (const text of ["a", "ab", "Hello there, how are you today?", "ünïcødé 👋🏽 ok"]) {
      const p = pieces(text)
      assert.strictEqual(p.join(""), text)
      for (const piece of p) assert.isTrue(Array.from(piece).length >= 1 && Array.from(piece).length <= 4)
    }
    assert.deepStrictEqual(pieces("{}", 2), ["{", "}"])
    assert.isAtLeast(pieces("{\"a\":1}", 2).length, 2)
  })
})

// ---------------------------------------------------------------------------
// The adapter against the fake
// ---------------------------------------------------------------------------

layer(NodeHttpClient.layerUndici)("OpenAiChat against the fake", (it) => {
  it.scoped("streams the scripted answer, sending the documented request with the whole context", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({
        scripts: [
          { when: "roaming", reply: { text: "Roaming in Mexico costs five dollars a day. Anything else?" } },
          { when: /weather/i, reply: { toolCalls: [{ name: "get_weather", arguments: { location: "Paris" } }] } }
        ]
      })
      const provider = yield* providerFor(fake)
      assert.strictEqual(provider.name, "openai")
      const messages: ReadonlyArray<Message> = [
        { role: "user", content: "Hi" },
        { role: "assistant", content: "Hello! I can help with your plan, roaming and", interrupted: true },
        { role: "user", content: "How much is roaming in Mexico?" }
      ]
      const request = requestOf(messages, { tools: [WEATHER, END_CALL] })
      const chunks = yield* collect(provider, request)

      assert.strictEqual(textOf(chunks), "Roaming in Mexico costs five dollars a day. Anything else?")
      const texts = chunks.filter((c) => c._tag === "Text")
      assert.isAtLeast(texts.length, 15)
      const done = doneOf(chunks)
      assert.strictEqual(done.finishReason, "stop")
      assert.isAbove(done.promptTokens ?? 0, 0)
      assert.isAbove(done.completionTokens ?? 0, 0)

      const [recorded] = fake.requests()
      assert.strictEqual(recorded.method, "POST")
      assert.strictEqual(recorded.path, "/v1/chat/completions")
      assert.strictEqual(recorded.headers.authorization, `Bearer ${API_KEY}`)
      assert.strictEqual(recorded.headers.accept, "text/event-stream")
      assert.match(recorded.headers["content-type"], /^application\/json/)
      assert.deepStrictEqual(recorded.body, chatRequestBody(request, { model: "gpt-4o-mini", includeUsage: true }))
      // the interrupted turn went out as the words heard, nothing more
      assert.deepStrictEqual(recorded.body.messages[0], { role: "system", content: SYSTEM })
      assert.deepStrictEqual(recorded.body.messages[2], {
        role: "assistant",
        content: "Hello! I can help with your plan, roaming and"
      })
      assert.strictEqual(fake.completedStreams(), 1)
      assert.strictEqual(fake.abortedStreams(), 0)
    }))

  it.scoped("after [DONE] the rest of the body is read, briefly, so the connection is kept for the next round", () =>
    Effect.gen(function*() {
      // the body ends 200 ms (on the TestClock) after [DONE]
      const fake = yield* withFake({ endDelayMillis: 200 })
      const provider = yield* providerFor(fake)
      /** A round whose body ends `after` ms after [DONE]: Done is out at once, before the body ends. */
      const round = (after: number) =>
        Effect.gen(function*() {
          const seen = yield* Queue.unbounded<LlmChunk>()
          const fiber = yield* provider.stream(hello).pipe(Stream.runForEach((c) => Queue.offer(seen, c)), Effect.fork)
          while ((yield* Queue.take(seen))._tag !== "Done") { /* the text */ }
          assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
          yield* TestClock.adjust(after)
          yield* Fiber.join(fiber)
        })
      yield* round(200)
      yield* round(200)
      assert.strictEqual(fake.abortedStreams(), 0)
      assert.strictEqual(fake.completedStreams(), 2)
      assert.strictEqual(new Set(fake.requests().map((r) => r.remotePort)).size, 1)

      // a body that lingers longer than 250 ms is given up (the answer was complete)
      fake.setDelays({ endMillis: 10_000 })
      yield* round(250)
      yield* fake.awaitAborted(1)
    }))

  it.scoped("a tool round trip: parallel calls over fragments, then the results sent back and the answer", () =>
    Effect.gen(function*() {
      for (const dialect of ["openai", "ollama", "vllm"] as const) {
        const fake = yield* withFake({ dialect })
        const provider = yield* providerFor(fake)
        fake.enqueue(
          {
            text: "Let me check.",
            toolCalls: [
              { name: "get_weather", arguments: { location: "Paris" }, id: "call_p" },
              { name: "get_weather", arguments: { location: "Berlin" }, id: "call_b" }
            ]
          },
          { text: "Paris is sunny and Berlin is cloudy." }
        )
        const first: ReadonlyArray<Message> = [{ role: "user", content: "Weather in Paris and Berlin?" }]
        const round1 = yield* collect(provider, requestOf(first, { tools: [WEATHER] }))
        assert.strictEqual(textOf(round1), "Let me check.", dialect)
        const calls = callsOf(round1)
        assert.deepStrictEqual(calls, [
          { id: "call_p", name: "get_weather", arguments: "{\"location\":\"Paris\"}" },
          { id: "call_b", name: "get_weather", arguments: "{\"location\":\"Berlin\"}" }
        ], dialect)
        assert.deepStrictEqual(round1.map((c) => c._tag).slice(-2), ["ToolCalls", "Done"])
        assert.strictEqual(doneOf(round1).finishReason, "tool_calls")

        const second: ReadonlyArray<Message> = [
          ...first,
          { role: "assistant", content: "Let me check.", toolCalls: calls },
          { role: "tool", toolCallId: "call_p", content: "sunny" },
          { role: "tool", toolCallId: "call_b", content: "cloudy" }
        ]
        const round2 = yield* collect(provider, requestOf(second, { tools: [WEATHER] }))
        assert.strictEqual(textOf(round2), "Paris is sunny and Berlin is cloudy.")
        const sent = fake.requests()[1].body.messages
        assert.deepStrictEqual(sent.slice(2), [
          {
            role: "assistant",
            content: "Let me check.",
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments }
            }))
          },
          { role: "tool", tool_call_id: "call_p", content: "sunny" },
          { role: "tool", tool_call_id: "call_b", content: "cloudy" }
        ])
      }
    }))

  it.scoped("golden bodies through the adapter, over HTTP, written in pieces", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const provider = yield* providerFor(fake)
      const cases: ReadonlyArray<readonly [string, (chunks: ReadonlyArray<LlmChunk>) => void]> = [
        [GOLDEN_TEXT, (c) => assert.strictEqual(textOf(c), "Hello! How can I help?")],
        [GOLDEN_TOOL, (c) => assert.strictEqual(callsOf(c)[0].arguments, "{\"location\":\"Paris, France\"}")],
        [GOLDEN_PARALLEL, (c) => assert.deepStrictEqual(callsOf(c).map((x) => x.id), ["call_a", "call_b"])],
        [GOLDEN_USAGE, (c) => assert.strictEqual(doneOf(c).promptTokens, 10)],
        [GOLDEN_VLLM, (c) => assert.strictEqual(doneOf(c).completionTokens, 2)],
        [GOLDEN_OLLAMA, (c) => assert.deepStrictEqual(callsOf(c).map((x) => x.name), ["get_weather", "get_time"])]
      ]
      for (const [body, check] of cases) {
        fake.fault({ _tag: "Body", body: randomSplits(body, body.length) })
        const chunks = yield* collect(provider, hello)
        check(chunks)
        assert.strictEqual(chunks.at(-1)?._tag, "Done")
      }
      // a server that answers one JSON completion despite stream: true
      fake.fault({
        _tag: "Body",
        contentType: "application/json",
        body: JSON.stringify({
          object: "chat.completion",
          choices: [{ index: 0, message: { role: "assistant", content: "Fine." }, finish_reason: "stop" }]
        })
      })
      assert.strictEqual(textOf(yield* collect(provider, hello)), "Fine.")
    }))

  it.scoped(
    "comments, keep-alives and unknown fields in the stream change nothing; a chunk that is not JSON is refused",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake({ scripts: [{ when: "", reply: { text: "All good here." } }] })
        const provider = yield* providerFor(fake)
        fake.fault({ _tag: "Lines", afterEvents: 0, lines: [": OPENROUTER PROCESSING", ""] })
        assert.strictEqual(textOf(yield* collect(provider, hello)), "All good here.")
        fake.fault({
          _tag: "Lines",
          afterEvents: 2,
          lines: [": keep-alive", "garbage line", "event: ping", "id: 42", "retry: 3000", ""]
        })
        assert.strictEqual(textOf(yield* collect(provider, hello)), "All good here.")

        fake.fault({ _tag: "Lines", afterEvents: 2, lines: ["data: {\"choices\": [{\"delta\": {\"content\"", ""] })
        const broken = yield* failure(provider, hello)
        assert.isFalse(broken.retryable)
        assert.include(broken.reason, "sent a chunk that is not JSON")
        fake.fault({
          _tag: "Lines",
          afterEvents: 2,
          lines: ["data: {\"error\":{\"message\":\"The server had an error\",\"type\":\"server_error\"}}", ""]
        })
        const midStream = yield* failure(provider, hello)
        assert.isTrue(midStream.retryable)
        assert.include(midStream.reason, "sent an error: The server had an error")
      })
  )

  it.scoped("the fake refuses malformed requests as OpenAI does, and those failures are not retryable", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const provider = yield* providerFor(fake)
      const orphan = yield* failure(
        provider,
        requestOf([{ role: "user", content: "hi" }, { role: "tool", toolCallId: "call_x", content: "42" }])
      )
      assert.isFalse(orphan.retryable)
      assert.include(
        orphan.reason,
        "answered 400: Invalid parameter: messages with role 'tool' must be a response to a preceeding message with " +
          "'tool_calls'."
      )

      const unanswered = yield* failure(
        provider,
        requestOf([{ role: "user", content: "hi" }, {
          role: "assistant",
          content: "",
          toolCalls: [{ id: "call_1", name: "x", arguments: "{}" }]
        }, { role: "user", content: "?" }])
      )
      assert.include(unanswered.reason, "The following tool_call_ids did not have response messages: call_1")

      const badTool = yield* failure(
        provider,
        requestOf([{ role: "user", content: "hi" }], {
          tools: [{ name: "get weather", description: "", parameters: { type: "object" } }]
        })
      )
      assert.include(badTool.reason, "does not match pattern")
      const hot = yield* failure(provider, requestOf([{ role: "user", content: "hi" }], { temperature: 3 }))
      assert.include(hot.reason, "Expected a value <= 2, but got 3 instead.")

      const unknown = yield* failure(provider, requestOf([{ role: "user", content: "hi" }], { model: "gpt-9" }))
      assert.isFalse(unknown.retryable)
      assert.include(
        unknown.reason,
        "answered 404: The model `gpt-9` does not exist or you do not have access to it. (model_not_found)"
      )
      assert.strictEqual(fake.completedStreams(), 0)
    }))

  it.scoped("maps each fault to the right retryable flag, with the provider's message", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const provider = yield* providerFor(fake)
      const cases: ReadonlyArray<readonly [FakeChatFault, boolean, string]> = [
        [{ _tag: "Respond", status: 400 }, false, "answered 400: Bad request"],
        [{ _tag: "Respond", status: 401 }, false, "answered 401: Incorrect API key provided: sk-wrong."],
        [
          { _tag: "Respond", status: 403 },
          false,
          "answered 403: Project does not have access to model (model_not_found)"
        ],
        [{ _tag: "Respond", status: 429 }, true, "Rate limit reached for gpt-4o-mini"],
        [
          { _tag: "Respond", status: 500 },
          true,
          "answered 500: The server had an error while processing your request."
        ],
        [
          { _tag: "Respond", status: 502, body: "<html>Bad gateway</html>" },
          true,
          "answered 502: <html>Bad gateway</html>"
        ],
        [{ _tag: "Respond", status: 503 }, true, "answered 503: The engine is currently overloaded"],
        [
          {
            _tag: "Respond",
            status: 429,
            body: {
              error: {
                message: "You exceeded your current quota, please check your plan and billing details.",
                type: "insufficient_quota",
                param: null,
                code: "insufficient_quota"
              }
            }
          },
          false,
          "You exceeded your current quota"
        ],
        [{ _tag: "Reset" }, true, "could not be reached"],
        [{ _tag: "Cut", afterEvents: 4 }, true, "ended the stream before the answer was complete"],
        [{ _tag: "Cut", afterEvents: 4, how: "reset" }, true, "broke off the answer"]
      ]
      for (const [fault, retryable, reason] of cases) {
        fake.fault(fault)
        const error = yield* failure(provider, hello)
        assert.strictEqual(error._tag, "LanguageModelError")
        assert.strictEqual(error.retryable, retryable, `${JSON.stringify(fault)}: ${error.reason}`)
        assert.include(error.reason, reason)
        assert.include(error.reason, `Chat completions API at ${new URL(fake.url).host}`)
      }
      fake.fault({ _tag: "Respond", status: 429 })
      assert.include((yield* failure(provider, hello)).reason, "(rate_limit_exceeded) (retry after 20 s)")

      // the real key check: none, or a wrong one
      const keyless = yield* providerFor(fake, { apiKey: undefined })
      const missing = yield* failure(keyless, hello)
      assert.isFalse(missing.retryable)
      assert.include(missing.reason, "answered 401: You didn't provide an API key.")
      assert.isUndefined(fake.requests().at(-1)!.headers.authorization)
      const wrong = yield* failure(yield* providerFor(fake, { apiKey: Redacted.make("sk-wrong") }), hello)
      assert.include(wrong.reason, "answered 401: Incorrect API key provided.")
      assert.isTrue(wrong.reason.endsWith("(invalid_api_key)"))

      // and the next request goes through
      assert.strictEqual(textOf(yield* collect(provider, hello)), "I'm sorry, I don't know.")
    }))

  it.scoped("a local server without a key gets no Authorization header; a closed port is retryable", () =>
    Effect.gen(function*() {
      const open = yield* makeFakeOpenAiChat({ models: ["llama3.1:8b"] })
      const provider = yield* make({ baseUrl: `${open.url}/`, model: "llama3.1:8b" })
      assert.strictEqual(textOf(yield* collect(provider, hello)), "I'm sorry, I don't know.")
      assert.isUndefined(open.requests()[0].headers.authorization)
      assert.strictEqual(open.requests()[0].path, "/v1/chat/completions")

      const closed = yield* make({ baseUrl: "http://127.0.0.1:1/v1" })
      const error = yield* failure(closed, hello)
      assert.isTrue(error.retryable)
      assert.include(error.reason, "could not be reached")
    }))

  it.scoped("refuses a configuration it cannot use", () =>
    Effect.gen(function*() {
      for (
        const options of [
          { baseUrl: "not a url" },
          { baseUrl: "ftp://example.com/v1" },
          { firstTokenTimeoutMillis: 0 },
          { idleTimeoutMillis: -1 }
        ]
      ) {
        const exit = yield* Effect.exit(make(options))
        assert.isTrue(Exit.isFailure(exit) && !Exit.isInterrupted(exit), JSON.stringify(options))
      }
    }))

  it.scoped("interrupting the consumer (a barge-in) aborts the request: the fake sees the client leave", () =>
    Effect.gen(function*() {
      // a slow answer on the fake's clock (the TestClock, which nobody moves): one delta, then a wait
      const fake = yield* withFake({
        chunkDelayMillis: 1_000,
        scripts: [{ when: "", reply: { text: "This is a long answer that the caller will not let me finish." } }]
      })
      const provider = yield* providerFor(fake)
      const seen = yield* Queue.unbounded<LlmChunk>()
      const fiber = yield* provider.stream(hello).pipe(Stream.runForEach((c) => Queue.offer(seen, c)), Effect.fork)
      const first = yield* Queue.take(seen)
      assert.strictEqual(first._tag, "Text")
      yield* Fiber.interrupt(fiber)
      yield* fake.awaitAborted(1)
      assert.strictEqual(fake.abortedStreams(), 1)
      assert.strictEqual(fake.completedStreams(), 0)

      // a consumer that takes what it needs and stops also ends the request
      yield* provider.stream(hello).pipe(Stream.take(1), Stream.runDrain)
      yield* fake.awaitAborted(2)
    }))

  it.scoped("no first token within firstTokenTimeoutMillis (TestClock): retryable, and the request is aborted", () =>
    Effect.gen(function*() {
      const fake = yield* withFake()
      const provider = yield* providerFor(fake, { firstTokenTimeoutMillis: 2_000, idleTimeoutMillis: 500 })

      // headers, then nothing (a keep-alive comment does not count)
      fake.fault({ _tag: "Lines", afterEvents: 0, lines: [": keep-alive", ""] })
      fake.setDelays({ firstTokenMillis: 60_000 })
      const fiber = yield* Effect.fork(failure(provider, hello))
      yield* fake.awaitRequests(1)
      yield* TestClock.adjust(1_999)
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
      yield* TestClock.adjust(1)
      const error = yield* Fiber.join(fiber)
      assert.isTrue(error.retryable)
      assert.include(error.reason, "sent no first token within 2 s")
      yield* fake.awaitAborted(1)

      // no answer at all, not even headers
      fake.fault({ _tag: "Hang" })
      const hung = yield* Effect.fork(failure(provider, hello))
      yield* fake.awaitRequests(2)
      yield* TestClock.adjust(2_000)
      assert.include((yield* Fiber.join(hung)).reason, "sent no first token within 2 s")
    }))

  it.scoped("a first token within the limit streams on (TestClock drives the fake's delay too)", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({
        firstTokenDelayMillis: 1_500,
        scripts: [{ when: "", reply: { text: "Sure, one moment." } }]
      })
      const provider = yield* providerFor(fake, { firstTokenTimeoutMillis: 2_000, idleTimeoutMillis: 500 })
      const fiber = yield* Effect.fork(collect(provider, hello))
      yield* fake.awaitRequests(1)
      yield* TestClock.adjust(1_500)
      const chunks = yield* Fiber.join(fiber)
      assert.strictEqual(textOf(chunks), "Sure, one moment.")
      assert.strictEqual(fake.abortedStreams(), 0)
    }))

  it.scoped(
    "a stream that stalls mid-answer fails after idleTimeoutMillis (TestClock), retryably, and is aborted",
    () =>
      Effect.gen(function*() {
        const fake = yield* withFake({ scripts: [{ when: "", reply: { text: "Let me tell you about our plans." } }] })
        const provider = yield* providerFor(fake, { firstTokenTimeoutMillis: 2_000, idleTimeoutMillis: 3_000 })
        // the role chunk and two text deltas, then silence
        fake.fault({ _tag: "Stall", afterEvents: 3 })
        const seen = yield* Queue.unbounded<LlmChunk>()
        const fiber = yield* provider.stream(hello).pipe(
          Stream.runForEach((c) => Queue.offer(seen, c)),
          Effect.flip,
          Effect.fork
        )
        yield* Queue.take(seen)
        yield* Queue.take(seen)
        yield* TestClock.adjust(2_999)
        assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)))
        yield* TestClock.adjust(1)
        const error: LanguageModelError = yield* Fiber.join(fiber)
        assert.isTrue(error.retryable)
        assert.include(error.reason, "sent nothing for 3 s in the middle of the answer")
        yield* fake.awaitAborted(1)

        // a stall after the finish reason (no usage, no [DONE]) still gives the complete answer; the
        // text and the finish come in one write, so once the text is out the finish has been read
        fake.fault({ _tag: "Body", body: sse(docChunk({ content: "Done." }), docChunk({}, "stop")), hold: true })
        const late = yield* provider.stream(hello).pipe(Stream.runForEach((c) => Queue.offer(seen, c)), Effect.fork)
        assert.deepStrictEqual(yield* Queue.take(seen), LlmChunk.Text({ text: "Done." }))
        yield* TestClock.adjust(3_000)
        yield* Fiber.join(late)
        assert.deepStrictEqual({ ...(yield* Queue.take(seen)) }, {
          _tag: "Done",
          finishReason: "stop",
          promptTokens: undefined,
          completionTokens: undefined
        })
      })
  )
})

describe("OpenAiChat on the real clock", () => {
  it.scopedLive("deltas arrive as they are sent, and a slow but steady stream is not idle", () =>
    Effect.gen(function*() {
      const fake = yield* withFake({ firstTokenDelayMillis: 50, chunkDelayMillis: 60 })
      fake.enqueue({ text: "One, two, three, four." })
      const provider = yield* providerFor(fake, { firstTokenTimeoutMillis: 5_000, idleTimeoutMillis: 1_000 })
      const arrivals: Array<number> = []
      const started = Date.now()
      const chunks = yield* provider.stream(hello).pipe(
        Stream.tap(() => Effect.sync(() => arrivals.push(Date.now() - started))),
        Stream.runCollect,
        Effect.map(Chunk.toArray)
      )
      assert.strictEqual(textOf(chunks), "One, two, three, four.")
      const texts = chunks.filter((c) => c._tag === "Text").length
      // more than a second from the first delta to the last: they were not buffered to the end
      assert.isAtLeast(texts, 6)
      assert.isAtLeast(arrivals.at(-1)! - arrivals[0], 60 * (texts - 2))
    }).pipe(Effect.provide(NodeHttpClient.layerUndici)))
})
