/**
 * The agent's brain: what it says. The embedded responder is retrieval-based: the agent's greeting
 * first, answers from its knowledge bases when it has them (the knowledge-base issue plugs that in),
 * and its `metadata.fallback_message` otherwise. An OpenAI-compatible adapter can replace it.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export interface AgentPersona {
  readonly name: string
  readonly greetMessage: string
  readonly agentPrompt: string
  readonly metadata: { readonly [key: string]: unknown }
  readonly knowledgeBaseIds: ReadonlyArray<string>
}

export interface Turn {
  readonly speaker: "agent" | "customer"
  readonly text: string
}

export const DEFAULT_FALLBACK = "I'm sorry, I don't have that information right now. I'll make sure someone follows up with you."

export class AgentBrain extends Context.Tag("Runner/AgentBrain")<AgentBrain, {
  readonly greet: (agent: AgentPersona) => Effect.Effect<string>
  readonly reply: (agent: AgentPersona, history: ReadonlyArray<Turn>, utterance: string) => Effect.Effect<string>
}>() {
  /** The retrieval-based responder, without retrieval until knowledge bases are linked. */
  static readonly responder = Layer.succeed(AgentBrain, {
    greet: (agent) => Effect.succeed(agent.greetMessage),
    reply: (agent, _history, utterance) => {
      if (/\b(bye|goodbye|thanks|thank you)\b/i.test(utterance)) return Effect.succeed("Thank you for your time. Goodbye!")
      const fallback = agent.metadata["fallback_message"]
      return Effect.succeed(typeof fallback === "string" && fallback.trim() !== "" ? fallback : DEFAULT_FALLBACK)
    }
  })
}
