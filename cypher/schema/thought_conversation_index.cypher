// Range index on (namespace, conversation_id, position): a conversation's messages in order,
// and the messages at positions p-w..p+w of one conversation (conversation neighbours).
// params: none
CREATE INDEX thought_conversation IF NOT EXISTS
FOR (t:Thought) ON (t.namespace, t.conversation_id, t.position)
