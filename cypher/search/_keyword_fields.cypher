// Fragment: what the keyword arm scores candidate `t` on, as one list
// (engrava_graph.search.arms.KEYWORD_FIELDS): thought_id, then the analysed terms and the text
// length stored with it (keyword_terms, keyword_length) while they are current, else null, null
// and the texts to analyse (essence, content). Current: the stored length is the length of the
// text as it is now (content when it starts with essence, else essence, newline, content, as
// engrava_graph.search.bm25.keyword_text), which an edit by hand in Neo4j Browser almost always
// changes; a thought written before the terms were stored has none.
[t.thought_id] + CASE
  // A text set by hand to another type than a string: no trim() on it (the caller reads it as
  // empty).
  WHEN NOT (coalesce(t.essence, '') IS :: STRING AND coalesce(t.content, '') IS :: STRING)
  THEN [null, null, t.essence, t.content]
  WHEN t.keyword_terms IS :: STRING
       AND t.keyword_length = CASE
         WHEN trim(coalesce(t.content, '')) STARTS WITH trim(coalesce(t.essence, ''))
         THEN size(coalesce(t.content, ''))
         ELSE size(coalesce(t.essence, '')) + 1 + size(coalesce(t.content, ''))
       END
  THEN [t.keyword_terms, t.keyword_length, null, null]
  ELSE [null, null, t.essence, t.content]
END
