-- Knowledge bases: the record and its Chroma collection, the documents added to it (text, URL,
-- FAQ pairs, uploaded files, with their extracted text), ingestion jobs and their per-document
-- items (what makes a job resumable), and the agents' links to knowledge bases.

CREATE TABLE knowledge_bases (
  id                          uuid PRIMARY KEY,
  tenant_id                   uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  kb_key                      text NOT NULL,
  kb_name                     text NOT NULL,
  description                 text NOT NULL DEFAULT '',
  retrieval_score_threshold   double precision NOT NULL
                                CHECK (retrieval_score_threshold >= 0 AND retrieval_score_threshold <= 1),
  metadata                    jsonb NOT NULL DEFAULT '{}',
  -- the embedder whose vectors are in `collection`; a change waits in `pending_embedder` until an
  -- ingestion job has re-embedded everything into the next generation's collection
  embedder                    text NOT NULL,
  pending_embedder            text,
  generation                  integer NOT NULL DEFAULT 1,
  collection                  text NOT NULL UNIQUE,
  created_at                  timestamptz NOT NULL,
  updated_at                  timestamptz NOT NULL,
  CONSTRAINT knowledge_bases_key UNIQUE (tenant_id, kb_key)
);

CREATE INDEX knowledge_bases_tenant_idx ON knowledge_bases (tenant_id, id DESC);

CREATE TABLE kb_documents (
  id                 uuid PRIMARY KEY,
  kb_id              uuid NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
  tenant_id          uuid NOT NULL,
  source_type        text NOT NULL CHECK (source_type IN ('TEXT', 'URL', 'FAQ', 'FILE')),
  title              text,
  url                text,
  file_name          text,
  format             text,
  size_bytes         integer,
  -- the text that is chunked (a URL's is fetched by the ingestion job), and its SHA-256
  content            text,
  faqs               jsonb,
  content_hash       text,
  -- PENDING: not ingested as it is now; INGESTED; FAILED (see last_error); REMOVED: deleted, its
  -- chunks leave the collection with the next ingestion job
  status             text NOT NULL CHECK (status IN ('PENDING', 'INGESTED', 'FAILED', 'REMOVED')),
  ingested_hash      text,
  ingested_embedder  text,
  chunk_count        integer NOT NULL DEFAULT 0,
  last_error         jsonb,
  ingested_at        timestamptz,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);

CREATE INDEX kb_documents_kb_idx ON kb_documents (kb_id, id);

CREATE TABLE kb_ingestion_jobs (
  id                   uuid PRIMARY KEY,
  kb_id                uuid NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
  tenant_id            uuid NOT NULL,
  status               text NOT NULL
                         CHECK (status IN ('QUEUED', 'RUNNING', 'SUCCEEDED', 'COMPLETED_WITH_ERRORS', 'FAILED')),
  full_reindex         boolean NOT NULL DEFAULT false,
  -- fixed when the job is planned
  planned              boolean NOT NULL DEFAULT false,
  embedder             text,
  target_collection    text,
  target_generation    integer,
  chunks_total         integer NOT NULL DEFAULT 0,
  chunks_done          integer NOT NULL DEFAULT 0,
  documents_total      integer NOT NULL DEFAULT 0,
  documents_done       integer NOT NULL DEFAULT 0,
  documents_unchanged  integer NOT NULL DEFAULT 0,
  documents_removed    integer NOT NULL DEFAULT 0,
  documents_failed     integer NOT NULL DEFAULT 0,
  errors               jsonb NOT NULL DEFAULT '[]',
  -- how many times a worker took it up (more than one: it was resumed)
  runs                 integer NOT NULL DEFAULT 0,
  lease_owner          text,
  lease_until          timestamptz,
  created_at           timestamptz NOT NULL,
  started_at           timestamptz,
  finished_at          timestamptz,
  updated_at           timestamptz NOT NULL
);

-- one job waits and one runs per knowledge base at a time
CREATE UNIQUE INDEX kb_ingestion_jobs_queued_key ON kb_ingestion_jobs (kb_id) WHERE status = 'QUEUED';
CREATE UNIQUE INDEX kb_ingestion_jobs_running_key ON kb_ingestion_jobs (kb_id) WHERE status = 'RUNNING';
CREATE INDEX kb_ingestion_jobs_kb_idx ON kb_ingestion_jobs (kb_id, id DESC);
CREATE INDEX kb_ingestion_jobs_open_idx ON kb_ingestion_jobs (created_at) WHERE status IN ('QUEUED', 'RUNNING');

CREATE TABLE kb_job_items (
  job_id        uuid NOT NULL REFERENCES kb_ingestion_jobs (id) ON DELETE CASCADE,
  document_id   uuid NOT NULL,
  position      integer NOT NULL,
  action        text NOT NULL CHECK (action IN ('UPSERT', 'DELETE', 'SKIP')),
  content_hash  text,
  chunk_total   integer NOT NULL DEFAULT 0,
  chunks_done   integer NOT NULL DEFAULT 0,
  status        text NOT NULL CHECK (status IN ('PENDING', 'DONE', 'FAILED')),
  PRIMARY KEY (job_id, document_id)
);

CREATE TABLE agent_knowledge_bases (
  agent_id   uuid NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
  kb_id      uuid NOT NULL REFERENCES knowledge_bases (id) ON DELETE CASCADE,
  position   integer NOT NULL,
  PRIMARY KEY (agent_id, kb_id)
);

CREATE INDEX agent_knowledge_bases_kb_idx ON agent_knowledge_bases (kb_id);
