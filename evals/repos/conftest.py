"""The fixture repositories' sources under src/ are data, not tests or examples.

Without this, pytest would look inside them: the TypeScript repository's
package.json and tsconfig.json would be taken for JSON examples, and a Python test
file added to a fixture repository would be run.
"""

collect_ignore = ["src"]
