; Every function definition, with its decorators when it has some.
(decorated_definition
  definition: (function_definition name: (identifier) @name) @def) @decorated
(function_definition name: (identifier) @name) @def
