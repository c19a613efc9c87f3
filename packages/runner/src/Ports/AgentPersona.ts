/**
 * The agent as a call's conversation needs it: its name, greeting and prompt, its metadata (a
 * `fallback_message`, say) and the knowledge bases it answers from. The live call builds it from the
 * agent's record and hands it to the carrier (`DialRequest.agent`: a carrier that cannot stream
 * plays the greeting) and to the agent's brain (`AgentBrain`). It sits here, below both, so that
 * neither the telephony port nor the brain has to reach the other for it.
 */
import type { TenantId } from "@voiceagent/domain/Ids"

export interface AgentPersona {
  readonly tenantId: TenantId
  readonly name: string
  readonly greetMessage: string
  readonly agentPrompt: string
  readonly metadata: { readonly [key: string]: unknown }
  readonly knowledgeBaseIds: ReadonlyArray<string>
}
