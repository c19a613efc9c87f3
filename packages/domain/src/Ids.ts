import * as Schema from "effect/Schema"

const uuid = <const B extends string>(brand: B) =>
  Schema.UUID.pipe(Schema.brand(brand), Schema.annotations({ description: `${brand} (UUID)` }))

export const UserId = uuid("UserId")
export type UserId = typeof UserId.Type

export const TenantId = uuid("TenantId")
export type TenantId = typeof TenantId.Type

export const ApiKeyId = uuid("ApiKeyId")
export type ApiKeyId = typeof ApiKeyId.Type

export const AgentId = uuid("AgentId")
export type AgentId = typeof AgentId.Type

export const PersonaId = uuid("PersonaId")
export type PersonaId = typeof PersonaId.Type

export const VoiceNumberId = uuid("VoiceNumberId")
export type VoiceNumberId = typeof VoiceNumberId.Type

export const ContactListId = uuid("ContactListId")
export type ContactListId = typeof ContactListId.Type

export const ContactId = uuid("ContactId")
export type ContactId = typeof ContactId.Type

export const KnowledgeBaseId = uuid("KnowledgeBaseId")
export type KnowledgeBaseId = typeof KnowledgeBaseId.Type

export const KbDocumentId = uuid("KbDocumentId")
export type KbDocumentId = typeof KbDocumentId.Type

export const IngestionJobId = uuid("IngestionJobId")
export type IngestionJobId = typeof IngestionJobId.Type
