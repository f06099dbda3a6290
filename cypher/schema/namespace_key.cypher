// One Namespace node per name.
// params: none
CREATE CONSTRAINT namespace_key IF NOT EXISTS
FOR (n:Namespace) REQUIRE n.name IS UNIQUE
