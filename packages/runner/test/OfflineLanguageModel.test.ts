import { assert, describe, it } from "@effect/vitest"
import {
  type ConversationCommand,
  ConversationEvent as E,
  type ConversationState,
  defaultSettings,
  END_CALL_TOOL,
  initialState,
  type Message,
  transition
} from "@voiceagent/domain/Conversation"
import type { TenantId } from "@voiceagent/domain/Ids"
import { RetrievedChunk } from "@voiceagent/domain/KnowledgeBases"
import {
  AgentBrain,
  type AgentPersona,
  DEFAULT_FALLBACK,
  GOODBYE,
  type Turn
} from "@voiceagent/runner/Brain/AgentBrain"
import { Retrieval } from "@voiceagent/runner/Knowledge/Retrieval"
import type { LanguageModelError, LlmChunk, LlmRequest } from "@voiceagent/runner/Voice/LanguageModel"
import { fromBrain, make, sentenceDeltas, turnsOf } from "@voiceagent/runner/Voice/OfflineLanguageModel"
import { Chunk, Effect, Layer, Stream } from "effect"

const TENANT = "00000000-0000-4000-8000-0000000000aa"
const OTHER_TENANT = "00000000-0000-4000-8000-0000000000bb"
const GREETING = "Hi, this is Ava from Acme Mobile. How can I help?"
const FALLBACK = "I don't know that yet, but a colleague will call you back today."

const agent = (overrides: Partial<LlmRequest["agent"]> = {}): LlmRequest["agent"] => ({
  tenantId: TENANT,
  knowledgeBaseIds: ["kb_plans"],
  metadata: { fallback_message: FALLBACK },
  greeting: GREETING,
  ...overrides
})

const requestOf = (messages: ReadonlyArray<Message>, overrides: Partial<LlmRequest> = {}): LlmRequest => ({
  system: "You are Ava. Be brief.",
  messages,
  tools: [
    { name: END_CALL_TOOL, description: "End the call", parameters: { type: "object", properties: {} } },
    { name: "transfer_call", description: "Transfer to a human", parameters: { type: "object", properties: {} } }
  ],
  agent: agent(),
  ...overrides
})

const collect = (request: LlmRequest) =>
  Effect.flatMap(make, (provider) => Stream.runCollect(provider.stream(request))).pipe(Effect.map(Chunk.toArray))

const texts = (chunks: ReadonlyArray<LlmChunk>) => chunks.flatMap((c) => (c._tag === "Text" ? [c.text] : []))
const tags = (chunks: ReadonlyArray<LlmChunk>) => chunks.map((c) => c._tag)

// ---------------------------------------------------------------------------
// A knowledge search of our own, for the real responder: passages per tenant and knowledge base,
// the best word overlap first (what Chroma and the embedders do, reduced to words)
// ---------------------------------------------------------------------------

const PASSAGES: ReadonlyArray<{ readonly tenant: string; readonly kb: string; readonly text: string }> = [
  {
    tenant: TENANT,
    kb: "kb_plans",
    text:
      "Q: How much does roaming in Mexico cost?\nA: Roaming in Mexico costs $5 a day. It includes your plan's data, " +
      "talk and text."
  },
  {
    tenant: TENANT,
    kb: "kb_plans",
    text: "Our stores open at 9 a.m. and close at 8 p.m. on weekdays. On Sundays they are closed."
  },
  { tenant: TENANT, kb: "kb_other", text: "Q: How do I reset my voicemail PIN?\nA: Dial *86 and follow the prompts." },
  {
    tenant: OTHER_TENANT,
    kb: "kb_plans",
    text: "Q: How much does roaming in Mexico cost?\nA: Another tenant's secret price."
  }
]

const words = (text: string) => new Set(text.toLowerCase().match(/[a-z0-9]+/g) ?? [])

const searches: Array<{ readonly tenantId: string; readonly kbIds: ReadonlyArray<string>; readonly query: string }> = []

const StubRetrieval = Layer.succeed(
  Retrieval,
  Retrieval.make({
    search: () => Effect.dieMessage("not used by the brain"),
    searchAll: (tenantId: TenantId, kbIds: ReadonlyArray<string>, query: string, topK: number) =>
      Effect.sync(() => {
        searches.push({ tenantId, kbIds, query })
        const asked = words(query)
        return PASSAGES
          .filter((p) => p.tenant === tenantId && kbIds.includes(p.kb))
          .map((p, i) => {
            const shared = [...words(p.text)].filter((w) => asked.has(w)).length
            return new RetrievedChunk({
              chunkId: `chunk_${i}`,
              score: shared / Math.max(1, asked.size),
              text: p.text,
              documentId: `00000000-0000-4000-8000-00000000000${i}` as RetrievedChunk["documentId"],
              chunkIndex: 0,
              source: { type: "FAQ", title: null, url: null, fileName: null }
            })
          })
          .filter((chunk) => chunk.score >= 0.5)
          .sort((a, b) => b.score - a.score)
          .slice(0, topK)
      })
  })
)

const Responder = AgentBrain.responder.pipe(Layer.provide(StubRetrieval))

// ---------------------------------------------------------------------------

describe("the offline provider's pieces", () => {
  it("says a reply a sentence at a time; the pieces add up to the reply", () => {
    assert.deepStrictEqual(sentenceDeltas("Hello there. How are you? Fine!"), [
      "Hello there.",
      " How are you?",
      " Fine!"
    ])
    assert.deepStrictEqual(sentenceDeltas("Dr. Smith costs $3.50 a day."), ["Dr. Smith costs $3.50 a day."])
    assert.deepStrictEqual(sentenceDeltas("No full stop"), ["No full stop"])
    assert.deepStrictEqual(sentenceDeltas("   "), [])
    assert.strictEqual(sentenceDeltas(FALLBACK).join(""), FALLBACK)
  })

  it("gives the brain the turns before the utterance, without tool calls and results", () => {
    const turns = turnsOf([
      { role: "assistant", content: GREETING },
      { role: "user", content: "Roaming?" },
      { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "lookup", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: "$5" },
      { role: "assistant", content: "It is five dollars", interrupted: true }
    ])
    assert.deepStrictEqual(turns, [
      { speaker: "agent", text: GREETING },
      { speaker: "customer", text: "Roaming?" },
      { speaker: "agent", text: "It is five dollars" }
    ])
  })
})

describe("OfflineLanguageModel with the scripted brain", () => {
  it.effect("is named offline; greets when nobody has spoken yet", () =>
    Effect.gen(function*() {
      const provider = yield* make
      assert.strictEqual(provider.name, "offline")
      const chunks = yield* collect(requestOf([]))
      assert.deepStrictEqual(texts(chunks), ["Hi, this is Ava from Acme Mobile.", " How can I help?"])
      assert.deepStrictEqual(chunks.at(-1), { _tag: "Done", finishReason: "stop" } as any)
    }).pipe(Effect.provide(AgentBrain.scripted)))

  it.effect("answers anything else with the agent's fallback line, or the default one, ignoring the tools", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(
        requestOf([{ role: "assistant", content: GREETING }, { role: "user", content: "Can I port my number?" }])
      )
      assert.deepStrictEqual(texts(chunks), ["I don't know that yet, but a colleague will call you back today."])
      assert.deepStrictEqual(tags(chunks), ["Text", "Done"])

      const plain = yield* collect(
        requestOf([{ role: "user", content: "Can I port my number?" }], { agent: agent({ metadata: {} }) })
      )
      assert.strictEqual(texts(plain).join(""), DEFAULT_FALLBACK)
      assert.deepStrictEqual(texts(plain), [
        "I'm sorry, I don't have that information right now.",
        " I'll make sure someone follows up with you."
      ])
    }).pipe(Effect.provide(AgentBrain.scripted)))

  it.effect("a goodbye is said, then end_call ends the round", () =>
    Effect.gen(function*() {
      for (const utterance of ["Okay, bye!", "Thank you, that's all.", "goodbye"]) {
        const chunks = yield* collect(
          requestOf([{ role: "assistant", content: GREETING }, { role: "user", content: utterance }])
        )
        assert.deepStrictEqual(tags(chunks), ["Text", "Text", "ToolCalls", "Done"], utterance)
        assert.strictEqual(texts(chunks).join(""), GOODBYE)
        const calls = chunks[2]._tag === "ToolCalls" ? chunks[2].calls : []
        assert.deepStrictEqual(calls.map((c) => [c.name, c.arguments]), [[END_CALL_TOOL, "{}"]])
        assert.match(calls[0].id, /^call_end_\d+$/)
        assert.deepStrictEqual(chunks[3], { _tag: "Done", finishReason: "tool_calls" } as any)
      }
    }).pipe(Effect.provide(AgentBrain.scripted)))

  it.effect("a turn already answered (the round after a tool) gets nothing more", () =>
    Effect.gen(function*() {
      const chunks = yield* collect(requestOf([
        { role: "user", content: "Transfer me" },
        { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "transfer_call", arguments: "{}" }] },
        { role: "tool", toolCallId: "c1", content: "transferred" }
      ]))
      assert.deepStrictEqual(tags(chunks), ["Done"])
    }).pipe(Effect.provide(AgentBrain.scripted)))
})

describe("OfflineLanguageModel with the retrieval responder", () => {
  it.effect("answers from the agent's knowledge bases, only its tenant's, a sentence at a time", () =>
    Effect.gen(function*() {
      searches.length = 0
      const chunks = yield* collect(requestOf([
        { role: "assistant", content: GREETING },
        { role: "user", content: "How much does roaming in Mexico cost?" }
      ]))
      assert.deepStrictEqual(texts(chunks), [
        "Roaming in Mexico costs $5 a day.",
        " It includes your plan's data, talk and text."
      ])
      assert.deepStrictEqual(tags(chunks).slice(-1), ["Done"])
      assert.deepStrictEqual(searches, [{
        tenantId: TENANT,
        kbIds: ["kb_plans"],
        query: "How much does roaming in Mexico cost?"
      }])

      // a passage in a knowledge base the agent does not use is not found: the fallback line
      const other = yield* collect(requestOf([{ role: "user", content: "How do I reset my voicemail PIN?" }]))
      assert.deepStrictEqual(texts(other), [FALLBACK])

      // an agent without knowledge bases does not search at all
      searches.length = 0
      const none = yield* collect(
        requestOf([{ role: "user", content: "When do your stores open?" }], { agent: agent({ knowledgeBaseIds: [] }) })
      )
      assert.deepStrictEqual(texts(none), [FALLBACK])
      assert.strictEqual(searches.length, 0)

      // a goodbye needs no search and ends the call
      const bye = yield* collect(requestOf([{ role: "user", content: "Great, thanks, bye" }]))
      assert.deepStrictEqual(tags(bye), ["Text", "Text", "ToolCalls", "Done"])
      assert.strictEqual(searches.length, 0)
    }).pipe(Effect.provide(Responder)))
})

describe("OfflineLanguageModel with a brain of our own", () => {
  const recordingBrain = (answer: (utterance: string) => string) => {
    const calls: Array<
      { readonly persona: AgentPersona; readonly history: ReadonlyArray<Turn>; readonly utterance: string }
    > = []
    const brain = {
      greet: (persona: AgentPersona) => Effect.succeed(`greet:${persona.greetMessage}`),
      reply: (persona: AgentPersona, history: ReadonlyArray<Turn>, utterance: string) =>
        Effect.sync(() => {
          calls.push({ persona, history, utterance })
          return answer(utterance)
        })
    }
    return { brain, calls }
  }

  it.effect("passes the agent, the earlier turns and the last words; the brain's goodbye ends the call", () =>
    Effect.gen(function*() {
      const { brain, calls } = recordingBrain((u) => (u.includes("done") ? GOODBYE : "Sure."))
      const provider = fromBrain(brain)
      const request = requestOf([
        { role: "assistant", content: GREETING },
        { role: "user", content: "Hello" },
        { role: "assistant", content: "Hi there, what", interrupted: true },
        { role: "user", content: "I'm done here" }
      ], { agent: agent({ metadata: { fallback_message: FALLBACK, name: "Ava" } }) })
      const chunks = yield* Stream.runCollect(provider.stream(request)).pipe(Effect.map(Chunk.toArray))
      // "I'm done here" is no goodbye to the brain's own test, but the brain said goodbye: the call ends
      assert.deepStrictEqual(tags(chunks), ["Text", "Text", "ToolCalls", "Done"])
      assert.deepStrictEqual(calls, [{
        persona: {
          tenantId: TENANT as TenantId,
          name: "Ava",
          greetMessage: GREETING,
          agentPrompt: "You are Ava. Be brief.",
          metadata: { fallback_message: FALLBACK, name: "Ava" },
          knowledgeBaseIds: ["kb_plans"]
        },
        history: [{ speaker: "agent", text: GREETING }, { speaker: "customer", text: "Hello" }, {
          speaker: "agent",
          text: "Hi there, what"
        }],
        utterance: "I'm done here"
      }])

      // the caller's goodbye ends the call even when this brain answers something else
      const bye = yield* Stream.runCollect(provider.stream(requestOf([{ role: "user", content: "bye now" }]))).pipe(
        Effect.map(Chunk.toArray)
      )
      assert.deepStrictEqual(texts(bye), ["Sure."])
      assert.deepStrictEqual(tags(bye), ["Text", "ToolCalls", "Done"])
    }))

  it.effect("a brain that dies fails the round, not retryably", () =>
    Effect.gen(function*() {
      const provider = fromBrain({
        greet: () => Effect.die("no greeting"),
        reply: () => Effect.die(new Error("index corrupt"))
      })
      const error: LanguageModelError = yield* Effect.flip(
        Stream.runCollect(provider.stream(requestOf([{ role: "user", content: "hi" }])))
      )
      assert.isFalse(error.retryable)
      assert.include(error.reason, "index corrupt")
    }))
})

describe("OfflineLanguageModel driving the conversation machine", () => {
  const settings = defaultSettings(GREETING)
  const run = (state: ConversationState, events: ReadonlyArray<E>) => {
    const commands: Array<ConversationCommand> = []
    for (const event of events) {
      const step = transition(state, event, settings)
      state = step.state
      commands.push(...step.commands)
    }
    return { state, commands }
  }
  /** The model's chunks as the engine turns them into events. */
  const asEvents = (responseId: number, chunks: ReadonlyArray<LlmChunk>, at: number): Array<E> =>
    chunks.map((chunk) =>
      chunk._tag === "Text"
        ? E.ReplyText({ responseId, text: chunk.text, at })
        : chunk._tag === "ToolCalls"
        ? E.ReplyToolCalls({ responseId, calls: chunk.calls, at })
        : E.ReplyDone({ responseId, at })
    )

  it.effect("a question is answered and the call goes on; a goodbye is said and the call hangs up", () =>
    Effect.gen(function*() {
      let { state } = run(initialState, [
        E.Started({ at: 0 }),
        E.PlaybackStarted({ responseId: 1, at: 100 }),
        E.PlaybackFinished({ responseId: 1, at: 3_000 })
      ])
      const turn = (words: string, at: number) =>
        run(state, [
          E.SpeechStarted({ at }),
          E.SpeechEnded({ at: at + 1_000 }),
          E.Transcript({ text: words, isFinal: true, at: at + 1_100 })
        ])

      // a question: the machine asks for a reply, the offline model gives it, it plays, the machine listens again
      let step = turn("How much does roaming in Mexico cost?", 4_000)
      const generate = step.commands.find((c) => c._tag === "Generate")
      assert.isDefined(generate)
      if (generate?._tag !== "Generate") return
      const answer = yield* collect(requestOf(generate.history))
      step = run(step.state, [
        E.TimerFired({ timer: "endpoint", at: 5_300 }),
        ...asEvents(generate.responseId, answer, 5_400)
      ])
      assert.deepStrictEqual(
        step.commands.filter((c) => c._tag === "Speak").map((c) => (c as { text: string }).text),
        ["Roaming in Mexico costs $5 a day.", " It includes your plan's data, talk and text."]
      )
      step = run(step.state, [
        E.PlaybackStarted({ responseId: generate.responseId, at: 5_500 }),
        E.PlaybackFinished({ responseId: generate.responseId, at: 9_000 })
      ])
      assert.strictEqual(step.state.phase, "Listening")
      state = step.state

      // a goodbye: said, then the call ends
      step = turn("Great, thank you, bye.", 10_000)
      const bye = step.commands.find((c) => c._tag === "Generate")
      if (bye?._tag !== "Generate") return assert.fail("no Generate")
      const goodbye = yield* collect(requestOf(bye.history))
      step = run(step.state, [
        E.TimerFired({ timer: "endpoint", at: 11_300 }),
        ...asEvents(bye.responseId, goodbye, 11_400)
      ])
      assert.strictEqual(
        step.commands.filter((c) => c._tag === "Speak").map((c) => (c as { text: string }).text).join(""),
        GOODBYE
      )
      step = run(step.state, [
        E.PlaybackStarted({ responseId: bye.responseId, at: 11_500 }),
        E.PlaybackFinished({ responseId: bye.responseId, at: 13_000 })
      ])
      assert.strictEqual(step.state.phase, "Ended")
      assert.deepInclude(step.commands, { _tag: "HangUp", reason: "agent_ended" } as any)
    }).pipe(Effect.provide(Responder)))
})
