"""Word lists and sentence templates the corpus generator draws realistic text from."""

from __future__ import annotations

FIRST_NAMES = (
    "Jürgen", "José", "Zoë", "Łukasz", "Søren", "Amélie", "Björn", "Chloé", "Tomáš", "Siobhán",
    "Çağla", "Renée", "Joël", "Åsa", "Mikaël", "Inês", "Dóra", "Ségolène", "Kristýna", "Raphaël",
    "Priya", "Kwame", "Hannah", "Marco", "Aiko", "Fatima", "Lars", "Nina", "Oskar", "Elena",
    "Mateo", "Ingrid", "Yusuf", "Clara", "Dmitri", "Sofia", "Tobias", "Leila", "Henrik", "Maya",
)  # fmt: skip
LAST_NAMES = (
    "Müller", "García", "Lindqvist", "Nowak", "Ørsted", "Dubois", "Ångström", "Lefèvre",
    "Dvořák", "O'Neill", "Yılmaz", "Kovačević", "Schäfer", "Núñez", "Jørgensen", "Wójcik",
    "Šimek", "Gößmann", "Brontë", "Østergaard", "Petrov", "Okafor", "Tanaka", "Rossi", "Fischer",
    "Haddad", "Berg", "Novak", "Weber", "Santos", "Kaur", "Mensah", "Ivanova", "Costa", "Larsen",
)  # fmt: skip

# Distinctive words: rare enough that one or two of them single out a record.
CODEWORDS = (
    "kestrel", "halyard", "tamarind", "sextant", "quartzite", "gondola", "marzipan", "zeppelin",
    "juniper", "obsidian", "pelican", "lantern", "basalt", "meridian", "saffron", "heron",
    "cobalt", "fjord", "walrus", "tundra", "anemone", "bergamot", "carillon", "dolomite",
    "ember", "falcon", "garnet", "harbinger", "ibex", "jackdaw", "kelp", "lichen", "mangrove",
    "narwhal", "ocelot", "papyrus", "quince", "rosemary", "sorrel", "thistle", "umber",
    "verbena", "wisteria", "yarrow", "zinnia", "albatross", "bramble", "cormorant", "driftwood",
    "eucalyptus", "foxglove", "gannet", "hawthorn", "iris", "jasmine", "kingfisher", "larkspur",
    "magnolia", "nutmeg", "osprey", "puffin", "quokka", "raven", "sandpiper", "tansy",
    "urchin", "vetiver", "wren", "xylophone", "yucca", "zephyr", "amber", "bison", "caribou",
    "dahlia", "egret", "fennel", "gecko", "hyacinth", "impala", "jacaranda", "koala",
    "lemur", "mistral", "nebula", "orchid", "pumice", "quasar", "rhubarb", "sequoia",
    "topaz", "ultramarine", "vermilion", "wolverine", "yeti", "zircon", "acacia", "beacon",
    "cinnabar", "dune", "estuary", "fulcrum", "glacier", "horizon", "isotope", "jetty",
    "keystone", "labyrinth", "monsoon", "nimbus", "oasis", "pinnacle", "quarry", "riptide",
    "solstice", "tributary", "undertow", "vortex", "whirlwind", "aurora", "barnacle",
    "chrysalis", "dragonfly", "equinox", "firefly", "gargoyle", "hologram", "iceberg",
    "jubilee", "kaleidoscope", "lighthouse", "mosaic", "nightingale", "origami", "paprika",
    "quicksilver", "rampart", "sundial", "trellis", "unicorn", "velvet", "windmill",
)  # fmt: skip

COMPONENTS = (
    "billing service", "login page", "search API", "export job", "mobile app", "payment gateway",
    "notification worker", "reporting dashboard", "customer portal", "invoice generator",
    "warehouse sync", "single sign-on", "file upload", "audit log", "rate limiter",
    "onboarding wizard", "checkout flow", "admin console", "data pipeline", "backup scheduler",
)  # fmt: skip
SYSTEMS = (
    "PostgreSQL", "Redis", "Kubernetes", "the load balancer", "the CDN", "Elasticsearch",
    "the mail relay", "the VPN gateway", "Kafka", "the staging cluster", "the build server",
    "the DNS zone", "the object store", "the LDAP directory", "the message queue",
)  # fmt: skip
CUSTOMERS = (
    "Fjordline Logistics", "Brauerei Weißenburg", "Café Olé Franchise", "Nordsee Reederei",
    "Zürich Mobility", "Kraków Textiles", "São Paulo Metro", "Ålesund Fisheries",
    "Château Bellevue", "Eindhoven Robotics", "Malmö Energi", "Porto Ceramics",
)  # fmt: skip
ENVIRONMENTS = ("production", "staging", "the test environment", "the EU region", "the US region")
METRICS = ("p95 latency", "error rate", "queue depth", "memory usage", "CPU load", "disk usage")

SUBJECT_TEMPLATES = (
    "Fix {codeword} timeout in the {component}",
    "Migrate {component} to {system}",
    "{codeword_cap}: intermittent 502 errors on {component}",
    "Add CSV export to the {component}",
    "Renew TLS certificate for {component}",
    "Investigate {metric} spike in {environment}",
    "Upgrade {system} for the {codeword} rollout",
    "Onboard {customer} to the {component}",
    "Document the {codeword} failover procedure",
    "Clean up stale feature flags in the {component}",
    "Improve accessibility of the {component}",
    "Rotate credentials used by the {component}",
    "Reduce {metric} of the {component}",
    "Prepare {codeword} release notes",
    "Customer escalation from {customer} about the {component}",
    "Translate the {component} into German and Polish",
)  # fmt: skip

DESCRIPTION_SENTENCES = (
    "Since the last deploy the {component} has been slow for users of {customer}.",
    "We see the {metric} climbing in {environment} every night around 02:00.",
    "The {codeword} workstream depends on {system}, so we need to coordinate with operations.",
    "Steps to reproduce: open the {component}, wait a minute, then retry the request.",
    "Acceptance criteria: the {metric} stays below the agreed threshold for a full week.",
    "The vendor confirmed the issue and suggested upgrading {system}.",
    "This blocks the {codeword} milestone planned for next quarter.",
    "Logs from {environment} are attached; look for the {codeword} correlation id.",
    "{person} reported that {customer} cannot finish the monthly close because of this.",
    "We should also update the runbook once the {component} change is live.",
    "Rolling back is possible: the previous image of the {component} is still in the registry.",
    "Budget impact is small, but the change needs sign-off from the security team.",
    "Related to the {codeword} epic; see the wiki page for the architecture sketch.",
    "The workaround is to restart the {component}, which is not acceptable long term.",
)  # fmt: skip

COMMENT_SENTENCES = (
    "I checked {environment} and the {metric} is back to normal.",
    "Could {person} have a look before Friday? This touches the {component}.",
    "Deployed a fix to {environment}; waiting for confirmation from {customer}.",
    "Root cause: a missing index in {system}. Patch is in review.",
    "Pairing with {person} on this tomorrow morning.",
    "Moved to the next sprint, the {codeword} work took priority.",
    "The {codeword} dashboard now shows the {metric} per tenant.",
    "Confirmed with {customer}: the problem is gone after the upgrade.",
    "Note for support: do not promise a date to {customer} yet.",
    "I could not reproduce this on {environment}; need more details.",
    "Added monitoring for the {metric} of the {component}.",
    "Security review done, no objections from our side.",
)  # fmt: skip
INTERNAL_COMMENT_SENTENCES = (
    "Internal: {customer} is behind on payments, keep the escalation low key.",
    "Internal note: the {codeword} contract renewal depends on fixing this.",
    "Internal: legal asked us not to mention {system} in customer replies.",
)  # fmt: skip
CHANGE_DETAILS = (
    "Status changed from New to In progress",
    "Status changed from In progress to Resolved",
    "Assignee set to {person}",
    "Priority changed from Normal to High",
    "Due date set to {date}",
    "Type changed from Task to Bug",
)  # fmt: skip

WIKI_TITLES = (
    "{codeword_cap} runbook", "Architecture of the {component}", "On-call handbook",
    "{codeword_cap} release checklist", "Onboarding guide for {customer}",
    "Incident postmortem: {component} outage", "Coding guidelines", "Glossary",
    "Disaster recovery plan for {system}", "{codeword_cap} service overview",
    "How we run sprint reviews", "Vendor contacts", "Security policy for {component}",
)  # fmt: skip
WIKI_SECTIONS = (
    "Overview", "Prerequisites", "Step-by-step procedure", "Rollback", "Monitoring",
    "Known issues", "Contacts", "History", "Open questions", "Glossary",
)  # fmt: skip
WIKI_SENTENCES = (
    "The {component} runs in {environment} behind {system}.",
    "Before you start, make sure you have access to {system} and the {codeword} vault.",
    "If the {metric} exceeds the threshold, page the on-call engineer.",
    "{person} owns this page; ask in the team channel if something is unclear.",
    "Restart the {component} only after draining the queue.",
    "Customer-specific settings for {customer} live in a separate configuration file.",
    "The {codeword} procedure was last rehearsed during the spring game day.",
    "Never rotate credentials of {system} during business hours.",
    "Dashboards for the {metric} are linked from the monitoring overview.",
    "This section replaces the old instructions that referred to the {codeword} cluster.",
    "Escalate to the vendor if the {component} does not recover within thirty minutes.",
    "Every change to this procedure needs a review by two people.",
    "Capacity planning for the {component} is revisited every quarter with finance.",
    "The {codeword} alerts are routed to the platform rotation, not to the product team.",
    "Use the read replica of {system} for reports; the primary is reserved for writes.",
    "A maintenance window for {environment} is announced at least three days ahead.",
    "{customer} has a contractual response time of four hours for severity one incidents.",
    "When in doubt, open a work package and link it to the {codeword} epic.",
    "The configuration of the {component} is versioned together with the deployment scripts.",
    "Load tests run every Tuesday night against {environment}.",
    "Temporary access to {system} expires automatically after eight hours.",
    "Decisions that change this page are recorded in the architecture board minutes.",
    "Screenshots in this section show the {component} before the redesign.",
    "We keep two weeks of logs for the {component}; older logs are archived to cold storage.",
)  # fmt: skip

MEETING_TITLES = (
    "Weekly sync", "Sprint review", "Sprint planning", "Hiring committee", "Budget review",
    "Incident retrospective", "Architecture board", "Customer check-in with {customer}",
    "{codeword_cap} steering meeting", "Release go/no-go", "Quarterly planning",
    "Security review", "Design critique",
)  # fmt: skip
LOCATIONS = (
    "Room 4", "Room Fjord", "Café corner", "Video call", "Boardroom", "Studio 2",
    "Zürich office", "Kraków office, 3rd floor", "Hybrid: Room 1 + video",
)  # fmt: skip
AGENDA_TITLES = (
    "Status of the {codeword} project", "Open incidents", "Budget for {component}",
    "Hiring plan", "Customer feedback from {customer}", "Roadmap for next quarter",
    "Risks and blockers", "Upgrade of {system}", "Team health check", "Any other business",
    "Approval of the travel policy", "On-call rotation", "Vendor contract for {system}",
)  # fmt: skip
AGENDA_NOTES = (
    "{person} presented the current state; the {metric} improved after the last release.",
    "Discussion about whether {customer} needs a dedicated environment.",
    "The {codeword} timeline slipped by two weeks because of the {system} upgrade.",
    "Costs for the {component} are within budget so far.",
    "Two open positions; interviews are scheduled with {person}.",
    "Concerns raised about the on-call load during the {codeword} migration.",
    "Feedback from {customer}: the {component} is much faster now.",
)  # fmt: skip
OUTCOME_NOTES = (
    "Decision: we go ahead with the {codeword} plan and review it in four weeks.",
    "Decision: {person} owns the {component} upgrade; deadline end of month.",
    "Decision: postpone the {system} migration until after the holidays.",
    "Action: {person} sends the summary to {customer}.",
    "Information: the {metric} target stays unchanged.",
    "Decision: approve the extra budget for the {component}.",
)  # fmt: skip

# The third project is the public one (every visitor sees it).
PROJECT_NAMES = (
    ("ops", "Operations"), ("platform", "Platform Engineering"), ("community", "Community Forum"),
    ("hr", "People & Hiring"), ("web", "Web Shop Relaunch"), ("mobile", "Mobile App"),
    ("finance", "Finance & Controlling"), ("support", "Customer Support"),
    ("security", "Security & Compliance"), ("data", "Data & Analytics"),
    ("design", "Design System"), ("infra", "Infrastructure"),
)  # fmt: skip
STATUSES = (
    ("New", False), ("In progress", False), ("On hold", False), ("In review", False),
    ("Resolved", True), ("Closed", True), ("Rejected", True),
)  # fmt: skip
TYPES = ("Task", "Bug", "Feature", "Epic", "Support request")
