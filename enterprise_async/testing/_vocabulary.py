"""The words the sandbox builds its data from: names, organizations, subjects, people, terms.

Kept apart from the generators so that the generators read as structure, not as lists of strings.
Free-form values (video, geolocation, degree details...) hold strings only: the XML renderer
writes every leaf as text, and string leaves are what lets a JSON and an XML response decode to
equal models.
"""

from __future__ import annotations

from typing import Final

CUSTOMER_NAMES: Final = (
    "Globex Corporation",
    "Initech",
    "Umbrella Learning",
    "Stark Industries",
    "Wayne Enterprises",
    "Acme Corporation",
    "Hooli",
    "Vandelay Industries",
    "Tyrell Corporation",
    "Cyberdyne Systems",
    "Soylent Foods",
    "Wonka Industries",
)

ORGANIZATIONS: Final = (
    ("HarvardX", "Harvard University", "#A51C30"),
    ("MITx", "Massachusetts Institute of Technology", "#A31F34"),
    ("BerkeleyX", "University of California, Berkeley", "#003262"),
    ("DelftX", "Delft University of Technology", "#00A6D6"),
    ("IBM", "IBM", "#0F62FE"),
    ("LinuxFoundationX", "The Linux Foundation", "#003366"),
    ("UQx", "The University of Queensland", "#51247A"),
    ("ColumbiaX", "Columbia University", "#1D4F91"),
)

SUBJECTS: Final = (
    ("Computer Science", "CS"),
    ("Data Analysis & Statistics", "DS"),
    ("Business & Management", "BUS"),
    ("Engineering", "ENG"),
    ("Economics & Finance", "FIN"),
    ("Communication", "COM"),
    ("Biology & Life Sciences", "BIO"),
    ("Environmental Studies", "ENV"),
    ("Humanities", "HUM"),
    ("Language", "LANG"),
)

TOPICS: Final = (
    "Machine Learning",
    "Cloud Computing",
    "Leadership",
    "Project Management",
    "Python",
    "Supply Chain",
    "Negotiation",
    "Cybersecurity",
    "Accounting",
    "Data Visualization",
    "Public Speaking",
    "Sustainability",
)

COURSE_NOUNS: Final = (
    "Foundations",
    "Principles",
    "Essentials",
    "Fundamentals",
    "Applied Methods",
    "Strategy",
    "Practice",
    "Design",
)

GIVEN_NAMES: Final = (
    "Ada",
    "Grace",
    "Alan",
    "Katherine",
    "Edsger",
    "Barbara",
    "Donald",
    "Frances",
    "Tim",
    "Margaret",
    "Claude",
    "Radia",
    "Linus",
    "Shafi",
    "Ken",
    "Hedy",
)

FAMILY_NAMES: Final = (
    "Lovelace",
    "Hopper",
    "Turing",
    "Johnson",
    "Dijkstra",
    "Liskov",
    "Knuth",
    "Allen",
    "Berners-Lee",
    "Hamilton",
    "Shannon",
    "Perlman",
    "Torvalds",
    "Goldwasser",
    "Thompson",
    "Lamarr",
)

JOB_TITLES: Final = (
    "Professor",
    "Associate Professor",
    "Lecturer",
    "Senior Data Scientist",
    "Principal Engineer",
)

COUNTRIES: Final = ("US", "GB", "DE", "IN", "BR", "CA", "FR", "JP", "NG", "AU")

LANGUAGES: Final = (
    ("en-us", "English"),
    ("es", "Spanish"),
    ("fr", "French"),
    ("zh-cn", "Chinese - Mandarin"),
)

CITIES: Final = (
    ("Cambridge", "42.3736", "-71.1097"),
    ("Delft", "52.0116", "4.3571"),
    ("Berkeley", "37.8715", "-122.2730"),
    ("Brisbane", "-27.4698", "153.0251"),
)

PROGRAM_TYPES: Final = (
    "Professional Certificate",
    "XSeries",
    "MicroMasters",
    "Professional Program",
    "Masters",
)
"""The first three are the documented values; the others appear in the reference's examples."""

LETTER_GRADES: Final = ("A", "B", "C", "Pass")

CATALOG_KINDS: Final = ("Business", "Executive Education", "Technology", "Leadership")

POLICY_KINDS: Final = (
    ("AssignedLearnerCreditAccessPolicy", "assigned", "Assigned learner credit"),
    ("AssignedLearnerCreditAccessPolicy", "assigned", "Leadership program budget"),
    ("PerLearnerSpendCreditAccessPolicy", "direct", "Open learner credit"),
    ("PerLearnerEnrollmentCreditAccessPolicy", "direct", "Enrollment credit"),
)
