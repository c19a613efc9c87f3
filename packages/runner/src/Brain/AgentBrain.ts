/**
 * The agent's brain: what it says. The embedded responder is retrieval-based: the agent's greeting
 * first; then, for each thing the caller says, the best passage from the agent's knowledge bases
 * (at or above each knowledge base's score threshold), reduced to the sentences that answer it (the
 * answer of an FAQ pair); the agent's `metadata.fallback_message` when nothing relevant is found.
 * An LLM-backed adapter can replace it behind the same tag.
 */
import { splitParagraphs, splitSentences } from "@voiceagent/domain/Chunking"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { stem, tokenize } from "../Knowledge/OfflineEmbedder.js"
import { Retrieval } from "../Knowledge/Retrieval.js"
import type { AgentPersona } from "../Ports/AgentPersona.js"

/** The brain's input; it lives in `Ports/` because the telephony port carries it too (`DialRequest.agent`). */
export type { AgentPersona }

export interface Turn {
  readonly speaker: "agent" | "customer"
  readonly text: string
}

export const DEFAULT_FALLBACK =
  "I'm sorry, I don't have that information right now. I'll make sure someone follows up with you."

/** Longest spoken answer taken from a passage, in characters. */
export const MAX_ANSWER_CHARS = 400

const words = (text: string): Set<string> => new Set(tokenize(text).map(stem))

/**
 * What to say from a retrieved passage: an FAQ pair's answer; otherwise the sentence sharing the
 * most words with the question, followed by the next one while the answer stays short.
 */
export const answerFrom = (passage: string, question: string): string => {
  const faq = /^Q: [\s\S]*?\nA: ([\s\S]+)$/.exec(passage)
  const text = faq === null ? passage : faq[1]!
  const sentences = splitParagraphs(text).flatMap(splitSentences).map((s) => s.trim()).filter((s) => s !== "")
  if (sentences.length === 0) return text.slice(0, MAX_ANSWER_CHARS).trim()
  const asked = words(question)
  let best = 0
  let bestScore = -1
  sentences.forEach((sentence, i) => {
    let score = 0
    for (const word of words(sentence)) if (asked.has(word)) score++
    if (score > bestScore) {
      best = i
      bestScore = score
    }
  })
  let answer = sentences[best]!
  const next = sentences[best + 1]
  if (next !== undefined && answer.length + next.length + 1 <= MAX_ANSWER_CHARS / 2) answer = `${answer} ${next}`
  return answer.length <= MAX_ANSWER_CHARS ? answer : `${answer.slice(0, MAX_ANSWER_CHARS - 1).trimEnd()}…`
}

const fallbackOf = (agent: AgentPersona): string => {
  const fallback = agent.metadata["fallback_message"]
  return typeof fallback === "string" && fallback.trim() !== "" ? fallback : DEFAULT_FALLBACK
}

/**
 * Whether the caller is taking leave; the brain then answers `GOODBYE`. "Bye" anywhere is; thanks
 * only as a closing (a short line that asks nothing): "Thanks, and what about roaming?" goes on.
 */
export const isGoodbye = (utterance: string) =>
  /\b(bye|goodbye)\b/i.test(utterance) ||
  (/\b(thanks|thank you)\b/i.test(utterance) && !utterance.includes("?") && utterance.trim().split(/\s+/).length <= 6)

/** The brain's answer to a goodbye. */
export const GOODBYE = "Thank you for your time. Goodbye!"

export class AgentBrain extends Context.Tag("Runner/AgentBrain")<AgentBrain, {
  readonly greet: (agent: AgentPersona) => Effect.Effect<string>
  readonly reply: (agent: AgentPersona, history: ReadonlyArray<Turn>, utterance: string) => Effect.Effect<string>
}>() {
  /** Greeting and fallback only: no knowledge bases are consulted. */
  static readonly scripted = Layer.succeed(AgentBrain, {
    greet: (agent) => Effect.succeed(agent.greetMessage),
    reply: (agent, _history, utterance) => Effect.succeed(isGoodbye(utterance) ? GOODBYE : fallbackOf(agent))
  })

  /** The retrieval-based responder over the agent's knowledge bases. */
  static readonly responder: Layer.Layer<AgentBrain, never, Retrieval> = Layer.effect(
    AgentBrain,
    Effect.map(Retrieval, (retrieval) => ({
      greet: (agent) => Effect.succeed(agent.greetMessage),
      reply: (agent, _history, utterance) =>
        Effect.gen(function*() {
          if (isGoodbye(utterance)) return GOODBYE
          if (agent.knowledgeBaseIds.length === 0) return fallbackOf(agent)
          const found = yield* retrieval.searchAll(agent.tenantId, agent.knowledgeBaseIds, utterance, 3).pipe(
            Effect.map((chunks) => Option.fromNullable(chunks[0])),
            Effect.catchAllCause((cause) =>
              Effect.as(Effect.logWarning("knowledge retrieval failed", cause), Option.none())
            )
          )
          return Option.match(found, {
            onNone: () => fallbackOf(agent),
            onSome: (chunk) => answerFrom(chunk.text, utterance)
          })
        })
    }))
  )
}
