// Full-text index over essence + content (English analyzer: stemming, stop words) and the
// namespace token, so a Lucene query can require +ns_token:<token> inside the index.
// params: none
CREATE FULLTEXT INDEX thought_text IF NOT EXISTS
FOR (t:Thought) ON EACH [t.essence, t.content, t.ns_token]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: false}}
