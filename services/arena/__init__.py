"""The arena: bots (and RLCard's rule agent) against each other over mirrored deals."""
