"""The fixed vocabulary of the library-circulation example: branches, age bands, the title catalog.

Everything here is plain data in a fixed order; `generate.py` draws events over it. Changing
anything in this file changes the committed example seeds, so regenerate them (see the command in
`kanon_tools.dev.generate`) and re-check the documentation that quotes them.

Weights are integers on purpose: the generator only divides, adds and takes square roots of them,
which IEEE 754 rounds exactly, so the committed seeds regenerate bit-for-bit on any machine.
"""

from __future__ import annotations

from dataclasses import dataclass

ROOT_LABEL = "*"

# Age bands in report order, their share of patrons, and their two-step generalization.
AGE_BANDS: tuple[str, ...] = ("13-17", "18-24", "25-44", "45-64", "65+")
AGE_WEIGHTS: tuple[int, ...] = (10, 13, 33, 26, 18)
AGE_PARENT: dict[str, str] = {
    "13-17": "13-24",
    "18-24": "13-24",
    "25-44": "25-64",
    "45-64": "25-64",
    "65+": "65+",
}

# Branch -> region, with the branch's share of home patrons (CENTRAL is the big one).
BRANCHES: tuple[tuple[str, str, int], ...] = (
    ("CENTRAL", "City Centre", 30),
    ("OLD TOWN", "City Centre", 8),
    ("NORTHGATE", "North", 12),
    ("HILLCREST", "North", 9),
    ("EASTWOOD", "East", 12),
    ("RIVERSIDE", "East", 10),
    ("WESTPARK", "West", 10),
    ("LAKESIDE", "West", 9),
)


@dataclass(frozen=True)
class Subject:
    name: str
    subject_class: str
    # Relative appetite of each age band (AGE_BANDS order) for this subject.
    affinity: tuple[int, int, int, int, int]
    titles: tuple[str, ...]


@dataclass(frozen=True)
class PlantedCell:
    """A deliberately thin cell: `loans[i]` loans of `title` by the i-th of len(loans) patrons,
    all of `age_band`, all at `branch`. Planted titles are never drawn at random, so these
    patrons are the only people who ever borrow them."""

    title: str
    branch: str
    age_band: str
    loans: tuple[int, ...]


SUBJECTS: tuple[Subject, ...] = (
    # ---- Fiction -------------------------------------------------------------------------
    Subject("Literary Fiction", "Fiction", (2, 3, 4, 5, 5), (
        "Pride and Prejudice", "Middlemarch", "To the Lighthouse", "The Great Gatsby", "Beloved",
        "The Remains of the Day", "Never Let Me Go", "Atonement", "The Handmaid's Tale",
        "Normal People", "The Goldfinch", "Americanah",
    )),
    Subject("Crime & Thrillers", "Fiction", (1, 2, 4, 6, 7), (
        "The Hound of the Baskervilles", "Murder on the Orient Express", "The Big Sleep",
        "Gone Girl", "The Girl With the Dragon Tattoo", "In the Woods",
        "The Talented Mr. Ripley", "Rebecca", "The Thursday Murder Club", '"Hello," She Lied',
        "Big Little Lies", "The Silent Patient", "And Then There Were None",
    )),
    Subject("Science Fiction & Fantasy", "Fiction", (5, 6, 4, 2, 1), (
        "Dune", "1984", "Brave New World", "The Left Hand of Darkness", "Foundation",
        "Neuromancer", "The Hobbit", "A Wizard of Earthsea", "Ender's Game", "The Fifth Season",
        "Kindred", "The Martian", "Piranesi",
    )),
    Subject("Romance", "Fiction", (2, 4, 4, 4, 3), (
        "Outlander", "The Notebook", "Me Before You", "Persuasion", "The Duke and I",
        "The Hating Game", "Beach Read", "Red, White & Royal Blue",
        "People We Meet on Vacation", "The Rosie Project", "One Day",
    )),
    Subject("Historical Fiction", "Fiction", (1, 1, 3, 5, 7), (
        "Wolf Hall", "All the Light We Cannot See", "The Pillars of the Earth", "The Book Thief",
        "War and Peace", "A Tale of Two Cities", "The Nightingale", "Girl With a Pearl Earring",
        "The Name of the Rose", "Hamnet", "Shōgun",
    )),
    Subject("World Literature", "Fiction", (1, 4, 3, 3, 3), (
        "Les Misérables", "Cien años de soledad", "L'Étranger", "Don Quijote de la Mancha",
        "Crime and Punishment", "Der Zauberberg", "Le Petit Prince", "Madame Bovary",
        "Things Fall Apart", "ノルウェイの森", "Pedro Páramo", "Bonjour tristesse",
    )),
    # ---- Children & Teens ----------------------------------------------------------------
    Subject("Picture Books", "Children & Teens", (1, 1, 8, 2, 2), (
        "The Very Hungry Caterpillar", "Where the Wild Things Are", "Goodnight Moon",
        "The Gruffalo", "Owl Babies", "We're Going on a Bear Hunt", "Room on the Broom",
        "The Tiger Who Came to Tea", "Guess How Much I Love You", "Elmer", "Dear Zoo",
    )),
    Subject("Middle Grade", "Children & Teens", (6, 1, 4, 1, 1), (
        "Charlotte's Web", "Matilda", "Wonder", "Holes", "The Lion, the Witch and the Wardrobe",
        "Harry Potter and the Philosopher's Stone", "Percy Jackson and the Lightning Thief",
        "Diary of a Wimpy Kid", "Tom's Midnight Garden", "The Secret Garden",
        "Pippi Långstrump",
    )),
    Subject("Young Adult", "Children & Teens", (12, 5, 1, 1, 1), (
        "The Hunger Games", "The Fault in Our Stars", "The Hate U Give", "Six of Crows",
        "Heartstopper: Volume One", "Speak", "The Perks of Being a Wallflower",
        "Looking for Alaska", "Children of Blood and Bone", "The Outsiders", "We Were Liars",
        "Aristotle and Dante Discover the Secrets of the Universe",
    )),
    # ---- Social Sciences -----------------------------------------------------------------
    Subject("Family & Relationships", "Social Sciences", (2, 2, 5, 3, 2), (
        "Coping With a Parent's Incarceration", "Leaving an Abusive Relationship",
        "The Whole-Brain Child", "How to Talk So Kids Will Listen", "Hold Me Tight",
        "The Five Love Languages", "Raising Teenagers Without Losing Your Mind",
        "Blended Families: A Practical Handbook", "Co-Parenting After Divorce",
        'The "Good Enough" Parent', "Siblings Without Rivalry", "Grandparenting Today",
    )),
    Subject("Sexuality & Identity", "Social Sciences", (4, 4, 2, 1, 1), (
        "Coming Out at Any Age", "Queer: A Graphic History", "This Book Is Gay",
        "Understanding Gender", "Bi: Notes for a Bisexual Revolution", "The Velvet Rage",
        "Come As You Are", "Trans Like Me", "A Guide to Asexuality",
        "Pride: The Story of the LGBTQ+ Movement",
    )),
    Subject("Society & Current Affairs", "Social Sciences", (1, 3, 3, 4, 4), (
        "Factfulness", "Invisible Women", "Why I'm No Longer Talking to White People About Race",
        "The Spirit Level", "Nickel and Dimed", "Hillbilly Elegy", "Prisoners of Geography",
        "Bowling Alone", "The Righteous Mind", "How Democracies Die",
    )),
    # ---- Health & Wellbeing --------------------------------------------------------------
    Subject("Health & Illness", "Health & Wellbeing", (1, 1, 3, 5, 7), (
        "Living Well With HIV", "After the Diagnosis: Living With Cancer",
        "The Emperor of All Maladies", "When Breath Becomes Air", "The Diabetes Handbook",
        "Understanding Heart Disease", "Living With Chronic Pain", "Gut: The Inside Story",
        "The Menopause Manifesto", "Why We Sleep",
    )),
    Subject("Mental Health", "Health & Wellbeing", (3, 5, 5, 3, 2), (
        "The Body Keeps the Score", "Feeling Good: The New Mood Therapy", "Lost Connections",
        "Reasons to Stay Alive", "Overcoming Anxiety", "Quiet: The Power of Introverts",
        "The Noonday Demon", "Man's Search for Meaning", "Mind Over Mood", "An Unquiet Mind",
    )),
    Subject("Ageing & Caregiving", "Health & Wellbeing", (1, 1, 1, 5, 8), (
        "Living With Dementia: A Family Guide", "Being Mortal", "The 36-Hour Day",
        "Caring for Aging Parents", "Staying Sharp After Seventy", "Downsizing Your Home",
        "A Guide to Care Homes", "Hearing Loss: A Practical Guide", "Grief Works",
    )),
    Subject("Addiction & Recovery", "Health & Wellbeing", (1, 2, 3, 3, 1), (
        "Recovering From Alcohol Dependence", "In the Realm of Hungry Ghosts",
        "Quit Like a Woman", "This Naked Mind", "Dopamine Nation", "Beautiful Boy",
        "The Easy Way to Stop Smoking", "Gambling: Breaking the Cycle",
    )),
    Subject("Fitness & Nutrition", "Health & Wellbeing", (2, 5, 5, 3, 2), (
        "Couch to 5K", "Born to Run", "Strength Training for Beginners", "How Not to Die",
        "Swim Smarter", "Pilates at Home", "Walking for Health", "The Yoga Bible",
    )),
    # ---- Practical Life ------------------------------------------------------------------
    Subject("Personal Finance & Debt", "Practical Life", (1, 4, 5, 4, 2), (
        "Drowning in Debt: A Way Out", "The Psychology of Money", "Rich Dad Poor Dad",
        "Your Money or Your Life", "The Total Money Makeover", "I Will Teach You to Be Rich",
        "The Intelligent Investor", "Budgeting on a Low Income", "Planning for Retirement",
        "Buying Your First Home",
    )),
    Subject("Careers & Business", "Practical Life", (1, 6, 6, 3, 1), (
        "What Color Is Your Parachute?", "Deep Work", "The Lean Startup",
        "Writing a CV That Works", "Start With Why", "Good to Great", "Lean In",
        "Starting a Small Business", "Acing the Job Interview", "Atomic Habits",
    )),
    Subject("Cooking & Food", "Practical Life", (1, 3, 5, 5, 4), (
        "Salt, Fat, Acid, Heat", "The Joy of Cooking", "Jerusalem",
        "Mastering the Art of French Cooking", "Plenty", "Crème Brûlée and Other Custards",
        "The Mediterranean Table", "Baking With Kids", "Sourdough at Home",
        "Smörgåsbord: Swedish Home Cooking", "Ottolenghi Simple",
    )),
    Subject("Home & Garden", "Practical Life", (1, 1, 4, 6, 6), (
        "The Well-Tempered Garden", "Gardening for Beginners", "Grow Your Own Vegetables",
        "The Life-Changing Magic of Tidying Up", "Home Repair Made Easy", "Knitting Without Tears",
        "Upcycled Furniture", "Houseplants for Every Room", "The Allotment Year",
        "Zoë's Garden Year", "Beekeeping Basics",
    )),
    Subject("Travel", "Practical Life", (1, 4, 4, 4, 4), (
        "Portugal on a Budget", "In Patagonia", "A Walk in the Woods",
        "The Old Patagonian Express", "Wild", "Cycling the Danube",
        "Walking the Camino de Santiago", "Japan by Rail", "Iceland: A Road Trip Guide",
        "Eat, Pray, Love",
    )),
    # ---- History & Biography -------------------------------------------------------------
    Subject("History", "History & Biography", (1, 2, 3, 5, 7), (
        "Sapiens", "SPQR", "The Guns of August", "Guns, Germs, and Steel", "The Silk Roads",
        "A People's History of the United States", "Postwar", "Stalingrad",
        "The Rise and Fall of the Third Reich", "The Anarchy",
    )),
    Subject("Biography & Memoir", "History & Biography", (1, 2, 3, 5, 6), (
        "Becoming", "Educated", "The Diary of a Young Girl", "Long Walk to Freedom",
        "I Know Why the Caged Bird Sings", "Born a Crime", "Steve Jobs", "H Is for Hawk",
        "Spare", "Just Kids", "Persepolis",
    )),
    # ---- Science & Technology ------------------------------------------------------------
    Subject("Popular Science", "Science & Technology", (3, 4, 4, 3, 3), (
        "A Brief History of Time", "The Selfish Gene", "Cosmos", "The Gene: An Intimate History",
        "Thinking, Fast and Slow", "Seven Brief Lessons on Physics",
        "The Immortal Life of Henrietta Lacks", "What If?", "Entangled Life",
        "Astrophysics for People in a Hurry", "The Code Breaker",
    )),
    Subject("Computing", "Science & Technology", (3, 6, 5, 2, 1), (
        "Python Crash Course", "Clean Code", "The Pragmatic Programmer",
        "Code: The Hidden Language of Computer Hardware and Software",
        "Automate the Boring Stuff with Python", "Spreadsheets for Everyone",
        "Staying Safe Online", "Computers for Seniors", "Weapons of Math Destruction",
        "Designing Data-Intensive Applications",
    )),
    Subject("Nature & Environment", "Science & Technology", (2, 3, 3, 4, 5), (
        "Silent Spring", "The Hidden Life of Trees", "Braiding Sweetgrass",
        "The Sixth Extinction", "Wilding", "A Field Guide to Garden Birds", "The Peregrine",
        "Underland", "A Sand County Almanac", "How to Avoid a Climate Disaster",
    )),
    # ---- Arts & Languages ----------------------------------------------------------------
    Subject("Art & Music", "Arts & Languages", (3, 3, 3, 3, 3), (
        "The Story of Art", "Ways of Seeing", "Steal Like an Artist",
        "Drawing on the Right Side of the Brain", "This Is Your Brain on Music", "The Rest Is Noise",
        "Learn to Play Guitar", "Watercolour for the Absolute Beginner", "Photography: The Basics",
        "How Music Works",
    )),
    Subject("Poetry & Drama", "Arts & Languages", (3, 3, 2, 2, 3), (
        "The Waste Land", "Leaves of Grass", "Hamlet", "Death of a Salesman", "Milk and Honey",
        "Ariel", "Veinte poemas de amor y una canción desesperada", "A Streetcar Named Desire",
        "The Importance of Being Earnest", "Citizen: An American Lyric", "Les Fleurs du mal",
    )),
    Subject("Language Learning", "Arts & Languages", (3, 6, 4, 2, 2), (
        "Spanish in 30 Days", "Français pour débutants", "German Grammar Made Simple",
        "Teach Yourself Arabic", "English for Everyday Life", "はじめての日本語",
        "Italian Phrasebook", "Mandarin Chinese: A First Course", "Polish for Beginners",
        "British Sign Language Basics",
    )),
)

# The thin cells the documentation walks through. Keep the first three exactly as they are.
PLANTED: tuple[PlantedCell, ...] = (
    # One teenager, two loans: the cell counts 2 loans but only 1 person.
    PlantedCell("Coping With a Parent's Incarceration", "RIVERSIDE", "13-17", (2,)),
    PlantedCell("Living With Dementia: A Family Guide", "LAKESIDE", "65+", (1, 1)),
    PlantedCell("Leaving an Abusive Relationship", "CENTRAL", "25-44", (1,)),
    PlantedCell("Living Well With HIV", "NORTHGATE", "25-44", (1, 2, 1)),
    PlantedCell("Drowning in Debt: A Way Out", "EASTWOOD", "45-64", (1, 1, 1)),
    PlantedCell("Drowning in Debt: A Way Out", "WESTPARK", "25-44", (2, 1)),
    PlantedCell("Coming Out at Any Age", "OLD TOWN", "18-24", (1, 1)),
    PlantedCell("Coming Out at Any Age", "HILLCREST", "13-17", (1,)),
    PlantedCell("Recovering From Alcohol Dependence", "WESTPARK", "45-64", (1, 1, 2)),
    PlantedCell("After the Diagnosis: Living With Cancer", "OLD TOWN", "65+", (1,)),
)


def catalog_titles() -> list[tuple[str, int]]:
    """(title, subject index) for every catalog title, in catalog order."""
    return [(title, s) for s, subject in enumerate(SUBJECTS) for title in subject.titles]


def subject_classes() -> list[str]:
    """The subject classes in first-appearance order."""
    return list(dict.fromkeys(subject.subject_class for subject in SUBJECTS))


def _check() -> None:
    titles = [title for title, _ in catalog_titles()]
    if len(titles) != len(set(titles)):
        raise AssertionError("catalog titles must be unique")
    if len({s.name for s in SUBJECTS}) != len(SUBJECTS):
        raise AssertionError("subject names must be unique")
    branch_names = {b for b, _, _ in BRANCHES}
    for cell in PLANTED:
        if cell.title not in titles or cell.branch not in branch_names or cell.age_band not in AGE_BANDS:
            raise AssertionError(f"planted cell refers to an unknown value: {cell}")


_check()
