// Copilot Chat's OTel database (`agent-traces.db`, schema version 2) as the extension creates it:
// for the reader's tests and the bench's corpus alike.

export const AGENT_TRACES_SCHEMA = `CREATE TABLE schema_version (version INTEGER PRIMARY KEY); INSERT INTO schema_version VALUES (2);
  CREATE TABLE spans (span_id TEXT PRIMARY KEY, trace_id TEXT NOT NULL, parent_span_id TEXT, name TEXT NOT NULL, start_time_ms INTEGER NOT NULL,
    end_time_ms INTEGER NOT NULL, status_code INTEGER NOT NULL DEFAULT 0, status_message TEXT, operation_name TEXT, provider_name TEXT, agent_name TEXT,
    conversation_id TEXT, request_model TEXT, response_model TEXT, input_tokens INTEGER, output_tokens INTEGER, cached_tokens INTEGER, reasoning_tokens INTEGER,
    tool_name TEXT, tool_call_id TEXT, tool_type TEXT, chat_session_id TEXT, turn_index INTEGER, ttft_ms REAL,
    session_id TEXT GENERATED ALWAYS AS (COALESCE(conversation_id, chat_session_id)) VIRTUAL);
  CREATE TABLE span_attributes (span_id TEXT NOT NULL REFERENCES spans(span_id) ON DELETE CASCADE, key TEXT NOT NULL, value TEXT, PRIMARY KEY (span_id, key));`;
