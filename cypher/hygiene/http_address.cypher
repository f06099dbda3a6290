// Where the server serves HTTP (and so Neo4j Browser): its advertised HTTP address, for the
// test that loads the Browser style and guide. Needs an admin user (SHOW SETTINGS).
// params: none
// returns: address (STRING, host:port)
SHOW SETTINGS YIELD name, value
WHERE name = 'server.http.advertised_address'
RETURN value AS address
