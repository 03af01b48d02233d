"""The server side of browx-actors: the protocol layer and the one dispatch path."""
